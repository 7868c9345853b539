// Starting programs without a shell: environment, descriptors, process group, failures.
#include "io/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace kev::io {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fd), 0); }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  std::string read_all() {
    ::close(fd[1]);
    fd[1] = -1;
    std::string out;
    char buf[256];
    ssize_t n = 0;
    while ((n = ::read(fd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    return out;
  }
};

int wait_exit(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Spawn, ExplicitEnvironmentAndSeparateOutputs) {
  Pipe out, err;
  const std::vector<std::string> env{"ONLY=this"};
  SpawnOptions o;
  o.env = &env;
  o.stdin_null = true;
  o.stdout_fd = out.fd[1];
  o.stderr_fd = err.fd[1];
  o.close_fds = {out.fd[0], err.fd[0]};
  pid_t pid = -1;
  ASSERT_EQ(
      spawn("/bin/sh", {"sh", "-c", "echo \"$ONLY ${HOME:-nohome}\"; echo oops >&2; cat"}, o, pid),
      0);
  EXPECT_EQ(out.read_all(), "this nohome\n");  // nothing else leaks in; stdin is empty
  EXPECT_EQ(err.read_all(), "oops\n");
  EXPECT_EQ(wait_exit(pid), 0);
}

TEST(Spawn, OwnProcessGroupAndPathSearch) {
  Pipe out;
  SpawnOptions o;
  o.search_path = true;
  o.stdout_fd = out.fd[1];
  o.close_fds = {out.fd[0]};
  o.own_process_group = true;
  pid_t pid = -1;
  ASSERT_EQ(spawn("sh", {"sh", "-c", "cut -d' ' -f5 /proc/$$/stat; echo $$"}, o, pid), 0);
  const std::string text = out.read_all();
  EXPECT_EQ(wait_exit(pid), 0);
  const auto nl = text.find('\n');
  ASSERT_NE(nl, std::string::npos) << text;
  EXPECT_EQ(text.substr(0, nl), std::to_string(pid)) << text;  // the child leads its group
}

TEST(Spawn, AMissingProgramIsAnErrorNumber) {
  pid_t pid = -1;
  EXPECT_NE(spawn("/nonexistent/program", {"program"}, SpawnOptions{}, pid), 0);
  SpawnOptions o;
  o.search_path = true;
  EXPECT_NE(spawn("kernelevo-no-such-program", {"kernelevo-no-such-program"}, o, pid), 0);
}

}  // namespace
}  // namespace kev::io
