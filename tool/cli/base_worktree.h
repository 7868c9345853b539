#pragma once
// A detached git worktree of another revision in a temporary directory, for `compare`.
// Removed when destroyed, and also when the process is interrupted (SIGINT, SIGTERM,
// SIGHUP): a signal handler removes it, then lets the signal end the process.
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace kev::cli {

class BaseWorktree {
 public:
  // `git worktree add --detach <tmp> <ref>` for the repository holding the current directory.
  static Result<BaseWorktree> create(const std::string& ref);
  BaseWorktree(BaseWorktree&& other) noexcept;
  BaseWorktree& operator=(BaseWorktree&&) = delete;
  BaseWorktree(const BaseWorktree&) = delete;
  ~BaseWorktree();

  // The worktree's directory that corresponds to the current directory.
  [[nodiscard]] const std::filesystem::path& project_dir() const { return project_dir_; }
  [[nodiscard]] const std::filesystem::path& root() const { return root_; }

 private:
  BaseWorktree() = default;
  std::filesystem::path repo_;  // the main checkout's top level
  std::filesystem::path temp_;  // the mkdtemp directory holding the worktree
  std::filesystem::path root_;  // the worktree
  std::filesystem::path project_dir_;
  bool owned_ = false;
};

// Runs a program (PATH lookup) and returns its stdout; a non-zero exit is an error holding
// its stderr.
[[nodiscard]] Result<std::string> run_capture(const std::vector<std::string>& argv);

}  // namespace kev::cli
