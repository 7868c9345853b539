// `kernelevo scan` output is what users script against: compared byte for byte with golden
// files in tests/fixtures/golden/.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 2 * 40^10 points each: counted exactly without constraints and where constraints link a few
// parameters; a lower bound where one constraint reads every parameter.
TEST(Scan, CountsHugeSpacesWithoutVisitingThem) {
  const auto start = std::chrono::steady_clock::now();
  const ScanRun run = scan("specs/huge", "");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, golden("scan_huge.txt"));
  EXPECT_EQ(run.err, "");
  const ScanRun json = scan("specs/huge", "--format json");
  ASSERT_EQ(json.exit_code, 0);
  const auto kernels = nlohmann::json::parse(json.out)["kernels"];
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0]["space"]["valid"], 20971520000000000ULL);
  EXPECT_EQ(kernels[0]["space"]["exact"], true);
  EXPECT_EQ(kernels[1]["space"]["valid"], 101376000000000ULL);
  EXPECT_EQ(kernels[1]["space"]["exact"], true);
  EXPECT_EQ(kernels[2]["space"]["exact"], false);  // "valid" is a lower bound
  EXPECT_GT(kernels[2]["space"]["valid"].get<std::uint64_t>(), 0u);
  EXPECT_LT(seconds_since(start), 1.5);  // both runs
}

TEST(Scan, RejectsHugeSpacesThatAreEmptyOrCannotBeLaunched) {
  const auto start = std::chrono::steady_clock::now();
  const ScanRun run = scan("specs/huge_broken", "");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "kernelevo: kernelevo.yaml:19:20: error: no valid configuration: the constraints "
            "exclude all 20971520000000000 points of the space\n"
            "kernelevo: kernelevo.yaml:42:45: error: none of the 288 configurations tried can be "
            "launched: integer overflow at '*' in expression \"n * 4 * A\" (first at "
            "A=1,P0=1,P1=1,P2=1,P3=1,P4=1,P5=1,P6=1,P7=1,P8=1,P9=1, problem "
            "n=4611686018427387904)\n"
            "kernelevo: 2 errors in kernel specs\n");
  EXPECT_LT(seconds_since(start), 0.5);
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
