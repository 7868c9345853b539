#include "cli/base_worktree.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "io/spawn.h"

namespace kev::cli {

namespace {

// What the signal handler needs, prepared before it is installed: it may only call
// async-signal-safe functions (fork, execvp, waitpid, rmdir, raise).
struct CleanupPlan {
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::string temp;
  volatile std::sig_atomic_t armed = 0;
};
CleanupPlan g_plan;
constexpr std::array kSignals{SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> g_previous{};

void on_signal(int sig) {
  if (g_plan.armed != 0) {
    g_plan.armed = 0;
    const pid_t pid = fork();
    if (pid == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) {
        dup2(devnull, 1);
        dup2(devnull, 2);
      }
      execvp(g_plan.argv[0], g_plan.argv.data());
      _exit(127);
    }
    if (pid > 0) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    rmdir(g_plan.temp.c_str());
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void arm(const std::filesystem::path& repo, const std::filesystem::path& worktree,
         const std::filesystem::path& temp) {
  g_plan.args = {"git", "-C", repo.string(), "worktree", "remove", "--force", worktree.string()};
  g_plan.argv.clear();
  for (auto& a : g_plan.args) g_plan.argv.push_back(a.data());
  g_plan.argv.push_back(nullptr);
  g_plan.temp = temp.string();
  g_plan.armed = 1;
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(kSignals[i], &sa, &g_previous[i]);
  }
}

void disarm() {
  g_plan.armed = 0;
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

std::string trim_newline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

Result<std::string> run_capture(const std::vector<std::string>& args) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0) return make_error("pipe failed", {}, ExitCode::environment);
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return make_error("pipe failed", {}, ExitCode::environment);
  }
  io::SpawnOptions options;
  options.search_path = true;
  options.stdout_fd = out_pipe[1];
  options.stderr_fd = err_pipe[1];
  options.close_fds = {out_pipe[0], err_pipe[0]};
  // The child starts with no signal blocked, whatever this process blocks meanwhile.
  options.unblock_signals = true;
  pid_t pid = 0;
  const int rc = io::spawn(args[0], args, options, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return make_error("cannot run " + args[0] + ": " + std::strerror(rc), {},
                      ExitCode::environment);
  }
  // git's outputs here are small; read stdout fully, then stderr.
  std::string out;
  std::string err;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(out_pipe[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  while ((n = read(err_pipe[0], buf, sizeof buf)) > 0) err.append(buf, static_cast<std::size_t>(n));
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string cmd;
    for (const auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    return make_error("`" + cmd + "` failed: " + trim_newline(err), {}, ExitCode::usage);
  }
  return out;
}

Result<BaseWorktree> BaseWorktree::create(const std::string& ref) {
  auto top = run_capture({"git", "rev-parse", "--show-toplevel"});
  if (!top) return top.error();
  auto prefix = run_capture({"git", "rev-parse", "--show-prefix"});
  if (!prefix) return prefix.error();
  auto commit = run_capture({"git", "rev-parse", "--verify", "--quiet", ref + "^{commit}"});
  if (!commit)
    return make_error("--base " + ref +
                          " is not a commit of this repository (with actions/checkout, "
                          "set fetch-depth: 0 so the base is there)",
                      {}, ExitCode::usage);
  const auto tmp_base = std::filesystem::temp_directory_path() / "kernelevo-base-XXXXXX";
  std::string templ = tmp_base.string();
  if (mkdtemp(templ.data()) == nullptr)
    return make_error("cannot create a temporary directory for the base worktree", {},
                      ExitCode::environment);
  BaseWorktree w;
  w.repo_ = trim_newline(*top);
  w.temp_ = templ;
  w.root_ = w.temp_ / "base";
  w.project_dir_ = w.root_ / trim_newline(*prefix);
  // Armed before the worktree exists, and the signals held while `git worktree add` runs:
  // an interrupt then removes a complete worktree instead of racing with its creation.
  arm(w.repo_, w.root_, w.temp_);
  sigset_t held;
  sigset_t previous;
  sigemptyset(&held);
  for (int sig : kSignals) sigaddset(&held, sig);
  sigprocmask(SIG_BLOCK, &held, &previous);
  auto added = run_capture({"git", "-C", w.repo_.string(), "worktree", "add", "--detach",
                            w.root_.string(), trim_newline(*commit)});
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (!added) {
    disarm();
    std::error_code ec;
    std::filesystem::remove_all(w.temp_, ec);
    (void)run_capture({"git", "-C", w.repo_.string(), "worktree", "prune"});
    return added.error();
  }
  w.owned_ = true;
  return w;
}

BaseWorktree::BaseWorktree(BaseWorktree&& other) noexcept
    : repo_(std::move(other.repo_)),
      temp_(std::move(other.temp_)),
      root_(std::move(other.root_)),
      project_dir_(std::move(other.project_dir_)),
      owned_(other.owned_) {
  other.owned_ = false;
}

BaseWorktree::~BaseWorktree() {
  if (!owned_) return;
  disarm();
  (void)run_capture({"git", "-C", repo_.string(), "worktree", "remove", "--force", root_.string()});
  std::error_code ec;
  std::filesystem::remove_all(temp_, ec);
  (void)run_capture({"git", "-C", repo_.string(), "worktree", "prune"});
}

}  // namespace kev::cli
