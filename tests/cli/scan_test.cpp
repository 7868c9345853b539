// `kernelevo scan` output is what users script against: compared byte for byte with golden
// files in tests/fixtures/golden/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/cli_run.h"

namespace {

const std::string kFixtures = KERNELEVO_FIXTURES;

struct ScanRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the binary in `dir` (relative to the fixtures) so that paths in the output are stable.
ScanRun scan(const std::string& dir, const std::string& args) {
  const auto r = kev::test_support::run_kernelevo("scan " + args, kFixtures + "/" + dir);
  return {r.exit_code, r.out, r.err};
}

std::string golden(const std::string& name) { return read(kFixtures + "/golden/" + name); }

TEST(Scan, ListsKernelsWithSpaceSizes) {
  const ScanRun run = scan(".", "specs/softmax.cu specs/project");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, golden("scan.txt"));
  EXPECT_EQ(run.err, golden("scan.stderr.txt"));  // the missing clang-format guard
}

TEST(Scan, JsonFormat) {
  const ScanRun run = scan(".", "specs/softmax.cu specs/project --format json");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, golden("scan.json"));
}

TEST(Scan, DefaultsToTheCurrentDirectoryAndReadsTheProjectFile) {
  const ScanRun run = scan("specs/project", "");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, golden("scan_default.txt"));
}

TEST(Scan, ReportsEveryErrorAndExitsTwo) {
  const ScanRun run = scan(".", "specs/broken");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, golden("scan_broken.stderr.txt"));
}

TEST(Scan, RejectsAnUnknownFormat) {
  const ScanRun run = scan(".", "specs/softmax.cu --format yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
}

TEST(Scan, MissingPathExitsTwo) {
  const ScanRun run = scan(".", "no/such/dir");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "kernelevo: error: no such file or directory: 'no/such/dir'\nkernelevo: 1 error in "
            "kernel specs\n");
}

}  // namespace
