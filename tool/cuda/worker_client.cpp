#include "cuda/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace kev::cuda {

namespace {

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

}  // namespace

WorkerRunner::WorkerRunner(std::vector<std::string> command, double grace_seconds)
    : command_(std::move(command)), grace_seconds_(grace_seconds) {
  // A worker that dies while we write to it must not kill the tuner.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerRunner::~WorkerRunner() { quit(2.0); }

void WorkerRunner::quit(double wait_seconds) {
  if (pid_ <= 0) return;
  WorkerRequest request;
  request.op = WorkerRequest::Op::quit;
  (void)write_all(to_child_, encode_request(request) + "\n");
  stop(false, wait_seconds);
}

std::vector<std::string> WorkerRunner::self_command(int device) {
  std::vector<std::string> argv;
  if (const char* wrapper = std::getenv("KERNELEVO_WORKER_WRAPPER"); wrapper != nullptr) {
    std::istringstream words(wrapper);
    for (std::string w; words >> w;) argv.push_back(w);
  }
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  argv.push_back(n > 0 ? std::string(path, static_cast<std::size_t>(n)) : "kernelevo");
  for (std::string word : {"worker", "--device"}) argv.push_back(std::move(word));
  argv.push_back(std::to_string(device));
  return argv;
}

bool WorkerRunner::start(std::string& why) {
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return false;
  }
  std::vector<char*> argv;
  for (auto& a : command_) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    why = std::string("fork: ") + std::strerror(errno);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) ::close(fd);
    return false;
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // the watchdog kills the whole group
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::execvp(argv[0], argv.data());
    const char msg[] = "kernelevo: cannot start the worker process\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  pid_ = pid;
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  pending_.clear();
  if (started_once_) ++restarts_;
  started_once_ = true;
  return true;
}

void WorkerRunner::stop(bool kill_now, double wait_seconds) {
  if (pid_ <= 0) return;
  if (to_child_ >= 0) ::close(to_child_);
  to_child_ = -1;
  if (kill_now) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
  int status = 0;
  // A worker told to quit gets a moment to release the GPU, then is killed.
  const int polls = std::max(1, static_cast<int>(wait_seconds * 100));
  for (int i = 0; i < polls; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) break;
    if (i == polls - 1) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    ::usleep(10000);
  }
  if (from_child_ >= 0) ::close(from_child_);
  from_child_ = -1;
  pid_ = -1;
}

// The worker exited on its own: collect its status and forget its pipes.
void WorkerRunner::reap(std::string& why) {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  why = "the worker " + describe_status(status);
  ::close(to_child_);
  ::close(from_child_);
  to_child_ = from_child_ = -1;
  pid_ = -1;
}

WorkerRunner::Exchange WorkerRunner::exchange(const std::string& request, double timeout_seconds,
                                              std::string& response, std::string& why) {
  if (pid_ <= 0 && !start(why)) return Exchange::start_failed;
  if (!write_all(to_child_, request + "\n")) {
    reap(why);
    return Exchange::died;
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_seconds));
  char buf[65536];
  for (;;) {
    if (auto nl = pending_.find('\n'); nl != std::string::npos) {
      response = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Exchange::ok;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      stop(true);
      why = "killed by the watchdog after " + std::to_string(static_cast<int>(timeout_seconds)) +
            " s";
      return Exchange::timeout;
    }
    pollfd p{from_child_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      stop(true);
      why = std::string("poll: ") + std::strerror(errno);
      return Exchange::died;
    }
    if (ready <= 0) continue;
    const ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n > 0) {
      pending_.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    reap(why);
    return Exchange::died;
  }
}

Result<DeviceInfo> WorkerRunner::device_info() {
  if (device_) return *device_;
  WorkerRequest req;
  req.op = WorkerRequest::Op::device;
  std::string line, why;
  const Exchange e = exchange(encode_request(req), grace_seconds_ + 120.0, line, why);
  if (e != Exchange::ok) return make_error("GPU worker: " + why, {}, ExitCode::environment);
  auto resp = decode_response(line);
  if (!resp) return resp.error();
  if (!resp->ok) return resp->error;
  device_ = resp->device;
  return *device_;
}

RunReport WorkerRunner::run(const RunRequest& request) {
  RunReport report;
  WorkerRequest req;
  req.op = WorkerRequest::Op::run;
  req.run = request;
  if (device_) {
    req.copy_gbps = device_->copy_gbps;
    req.read_gbps = device_->read_gbps;
  }
  std::string line, why;
  const double limit = request.timing.timeout_seconds + grace_seconds_;
  const Exchange e = exchange(encode_request(req), limit, line, why);
  auto finish = [&](Disposition d, std::string detail) {
    report.outcome.disposition = d;
    report.outcome.detail = std::move(detail);
    return report;
  };
  switch (e) {
    case Exchange::timeout:
      return finish(Disposition::timeout, "GPU worker " + why);
    case Exchange::died:
      return finish(Disposition::crashed, "GPU worker crashed: " + why);
    case Exchange::start_failed:
      return finish(Disposition::invalid, "cannot start the GPU worker: " + why);
    case Exchange::ok:
      break;
  }
  auto resp = decode_response(line);
  if (!resp) {
    stop(true);
    return finish(Disposition::crashed, resp.error().message);
  }
  if (!resp->ok) return finish(Disposition::invalid, resp->error.message);
  if (!device_ && resp->device.copy_gbps > 0.0) device_ = resp->device;
  report = std::move(resp->report);
  if (report.context_lost) stop(false);  // it exits by itself; the next request restarts it
  return report;
}

}  // namespace kev::cuda
