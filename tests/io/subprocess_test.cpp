#include "io/subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

namespace kev::io {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RunProcess, CapturesOutputAndExitCode) {
  const auto r = run_process({"/bin/sh", "-c", "echo out; echo err 1>&2; exit 3"},
                             scrubbed_environment(), 10.0);
  ASSERT_TRUE(r.started);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.output, HasSubstr("out"));
  EXPECT_THAT(r.output, HasSubstr("err"));
}

TEST(RunProcess, KillsTheWholeProcessTreeAtTheTimeLimit) {
  const auto start = std::chrono::steady_clock::now();
  // The shell starts a grandchild: the whole process group is killed, not just the shell.
  const auto r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, scrubbed_environment(), 0.3);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(elapsed, 5.0);
}

TEST(RunProcess, PassesOnlyTheScrubbedEnvironment) {
  ::setenv("KERNELEVO_TEST_SECRET_KEY", "sk-do-not-leak", 1);
  const auto r = run_process({"env"}, scrubbed_environment(), 10.0);
  ::unsetenv("KERNELEVO_TEST_SECRET_KEY");
  ASSERT_TRUE(r.started) << r.output;
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("PATH="));
  EXPECT_THAT(r.output, Not(HasSubstr("sk-do-not-leak")));
  // Every variable is one of the three allowed.
  std::size_t pos = 0;
  while (pos < r.output.size()) {
    const auto end = r.output.find('\n', pos);
    const std::string line = r.output.substr(pos, end - pos);
    if (!line.empty()) {
      const std::string name = line.substr(0, line.find('='));
      EXPECT_TRUE(name == "PATH" || name == "HOME" || name == "TMPDIR") << line;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
}

TEST(RunProcess, ReportsAProgramThatCannotStart) {
  const auto r = run_process({"/nonexistent/program"}, scrubbed_environment(), 10.0);
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.output, HasSubstr("/nonexistent/program"));
}

}  // namespace
}  // namespace kev::io

namespace kev::io {
namespace {

TEST(RunProcessSplit, KeepsStdoutAndStderrApart) {
  const auto r = run_process_split({"/bin/sh", "-c", "echo out; echo err >&2; exit 4"},
                                   scrubbed_environment(), 10.0, 1024, 1024);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.too_much_output);
}

TEST(RunProcessSplit, KillsAChildThatWritesPastItsLimit) {
  const auto r =
      run_process_split({"/bin/sh", "-c", "yes"}, scrubbed_environment(), 30.0, 4096, 1024);
  EXPECT_TRUE(r.too_much_output);
  EXPECT_FALSE(r.timed_out);
  EXPECT_LE(r.out.size(), 4096u);
  const auto e =
      run_process_split({"/bin/sh", "-c", "yes >&2"}, scrubbed_environment(), 30.0, 4096, 1024);
  EXPECT_TRUE(e.too_much_output);
  EXPECT_LE(e.err.size(), 1024u);
}

TEST(RunProcessSplit, StopsAtTheTimeLimit) {
  const auto r =
      run_process_split({"/bin/sh", "-c", "sleep 20"}, scrubbed_environment(), 0.3, 1024, 1024);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, -1);
}

}  // namespace
}  // namespace kev::io
