#include "io/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

extern char** environ;

namespace kev::io {

namespace {

std::vector<char*> c_strings(const std::vector<std::string>& items) {
  std::vector<char*> out;
  out.reserve(items.size() + 1);
  for (const auto& s : items) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

int spawn(const std::string& program, const std::vector<std::string>& argv,
          const SpawnOptions& options, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.stdin_null) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options.stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stdout_fd, 1);
  if (options.stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stderr_fd, 2);
  for (int fd : options.close_fds) posix_spawn_file_actions_addclose(&actions, fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = 0;
  if (options.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  sigset_t none;
  sigemptyset(&none);
  if (options.unblock_signals) {
    flags |= POSIX_SPAWN_SETSIGMASK;
    posix_spawnattr_setsigmask(&attr, &none);
  }
  posix_spawnattr_setflags(&attr, flags);
  auto args = c_strings(argv);
  std::vector<char*> envp;
  if (options.env != nullptr) envp = c_strings(*options.env);
  char* const* env = options.env != nullptr ? envp.data() : environ;
  const int rc = options.search_path
                     ? ::posix_spawnp(&pid, program.c_str(), &actions, &attr, args.data(), env)
                     : ::posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), env);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

}  // namespace kev::io
