#include "io/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <utility>

#include "io/file_read.h"
#include "io/spawn.h"

namespace kev::io {

std::vector<std::string> scrubbed_environment() {
  std::vector<std::string> env;
  const char* path = std::getenv("PATH");
  env.push_back(std::string("PATH=") + (path != nullptr && *path != '\0' ? path : "/usr/bin:/bin"));
  for (const char* name : {"HOME", "TMPDIR"}) {
    if (const char* value = std::getenv(name); value != nullptr) {
      env.push_back(std::string(name) + "=" + value);
    }
  }
  return env;
}

namespace {

std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

// posix_spawnp searches the PATH of the parent, not of `env`: resolve it here.
std::string resolve_program(const std::string& program, const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return program;
  std::string path = "/usr/bin:/bin";
  for (const auto& e : env) {
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    const std::string candidate = path.substr(begin, end - begin) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return program;
}

// How a child that runs in its own process group ended: waited for until it exits, the
// deadline passes or `over_limit()` says its output is too large (both kill the group).
struct ChildEnd {
  int status = 0;
  bool timed_out = false;
  bool over_limit = false;
};

ChildEnd wait_for_child(pid_t pid, double timeout_seconds,
                        const std::function<bool()>& over_limit) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_seconds));
  ChildEnd end;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = ::waitpid(pid, &end.status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    const bool over = over_limit && over_limit();
    if (over || std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &end.status, 0);
      (over ? end.over_limit : end.timed_out) = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return end;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_seconds) {
  ProcessResult result;
  if (argv.empty()) {
    result.output = "no program to run";
    return result;
  }
  std::string out_path = temp_dir() + "/kernelevo-proc-XXXXXX";
  const int out_fd = ::mkstemp(out_path.data());
  if (out_fd < 0) {
    result.output = "cannot create a temporary file in " + temp_dir() + ": " + std::strerror(errno);
    return result;
  }

  io::SpawnOptions options;
  options.env = &env;
  options.stdin_null = true;
  options.stdout_fd = out_fd;
  options.stderr_fd = out_fd;
  options.close_fds = {out_fd};
  options.own_process_group = true;
  const std::string program = resolve_program(argv[0], env);
  pid_t pid = -1;
  const int rc = io::spawn(program, argv, options, pid);
  ::close(out_fd);
  if (rc != 0) {
    ::unlink(out_path.c_str());
    result.output = "cannot run " + program + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;

  const ChildEnd end = wait_for_child(pid, timeout_seconds, nullptr);
  const int status = end.status;
  result.timed_out = end.timed_out;
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signalled = true;
    }
  }
  auto output = read_regular_file(out_path, kMaxToolOutputBytes);
  if (output) result.output = std::move(*output);
  ::unlink(out_path.c_str());
  return result;
}

namespace {

// At most `max` bytes of the file open at `fd`, from its start.
std::string read_at_most(int fd, std::size_t max) {
  std::string out;
  if (::lseek(fd, 0, SEEK_SET) < 0) return out;
  char buffer[65536];
  while (out.size() < max) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, max - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

std::size_t size_of_fd(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
}

// A temporary file, unlinked at once: only its descriptor names it.
int anonymous_file() {
  std::string path = temp_dir() + "/kernelevo-proc-XXXXXX";
  const int fd = ::mkostemp(path.data(), O_CLOEXEC);  // other threads' children never get it
  if (fd >= 0) ::unlink(path.c_str());
  return fd;
}

}  // namespace

SplitProcessResult run_process_split(const std::vector<std::string>& argv,
                                     const std::vector<std::string>& env, double timeout_seconds,
                                     std::size_t max_out_bytes, std::size_t max_err_bytes) {
  SplitProcessResult result;
  if (argv.empty()) {
    result.err = "no program to run";
    return result;
  }
  const int out_fd = anonymous_file();
  const int err_fd = out_fd >= 0 ? anonymous_file() : -1;
  if (out_fd < 0 || err_fd < 0) {
    if (out_fd >= 0) ::close(out_fd);
    result.err = "cannot create a temporary file in " + temp_dir() + ": " + std::strerror(errno);
    return result;
  }
  io::SpawnOptions options;
  options.env = &env;
  options.stdin_null = true;
  options.stdout_fd = out_fd;
  options.stderr_fd = err_fd;
  options.close_fds = {out_fd, err_fd};
  options.own_process_group = true;
  const std::string program = resolve_program(argv[0], env);
  pid_t pid = -1;
  const int rc = io::spawn(program, argv, options, pid);
  if (rc != 0) {
    ::close(out_fd);
    ::close(err_fd);
    result.err = "cannot run " + program + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  const ChildEnd end = wait_for_child(pid, timeout_seconds, [&] {
    return size_of_fd(out_fd) > max_out_bytes || size_of_fd(err_fd) > max_err_bytes;
  });
  const int status = end.status;
  result.timed_out = end.timed_out;
  result.too_much_output = end.over_limit;
  if (!result.timed_out && !result.too_much_output) {
    // The last writes before the exit may still have passed a limit.
    if (size_of_fd(out_fd) > max_out_bytes || size_of_fd(err_fd) > max_err_bytes) {
      result.too_much_output = true;
    } else if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signalled = true;
    }
  }
  result.out = read_at_most(out_fd, max_out_bytes);
  result.err = read_at_most(err_fd, max_err_bytes);
  ::close(out_fd);
  ::close(err_fd);
  return result;
}

}  // namespace kev::io
