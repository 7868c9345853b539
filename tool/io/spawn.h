#pragma once
// Starting a program without a shell: the one wrapper of posix_spawn, for the compilers and
// tools (cuda/subprocess.h: explicit environment, time limit) and git (cli/base_worktree.h).
// The worker processes (cuda/worker_client.h) fork instead: a worker that cannot be executed
// must say so on stderr and exit, like one that fails later.
#include <sys/types.h>

#include <string>
#include <vector>

namespace kev::io {

struct SpawnOptions {
  const std::vector<std::string>* env = nullptr;  // "NAME=value"; nullptr: this process's
  bool search_path = false;        // look `program` up in this process's PATH (posix_spawnp)
  bool stdin_null = false;         // stdin from /dev/null (else inherited)
  int stdout_fd = -1;              // dup2'ed onto stdout (-1: inherited)
  int stderr_fd = -1;              // dup2'ed onto stderr (-1: inherited)
  std::vector<int> close_fds;      // closed in the child after the dup2s
  bool own_process_group = false;  // the child leads a new group: kill(-pid) ends its tree
  bool unblock_signals = false;    // the child starts with no signal blocked
};

// Starts `program` with `argv` (argv[0] as given); 0 and the child's pid in `pid`, or the
// error number of the failed start.
[[nodiscard]] int spawn(const std::string& program, const std::vector<std::string>& argv,
                        const SpawnOptions& options, pid_t& pid);

}  // namespace kev::io
