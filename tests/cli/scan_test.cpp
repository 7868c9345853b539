// `kernelevo scan` output is what users script against: compared byte for byte with golden
// files in tests/fixtures/golden/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_run.h"
#include "support/cpu_time.h"
#include "support/temp_dir.h"

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

// stderr without the warnings that the huge-space fixtures draw on purpose (their
// parameters change nothing in their kernels).
std::string without_warnings(const std::string& err) {
  std::string out;
  std::size_t start = 0;
  while (start < err.size()) {
    auto end = err.find('\n', start);
    end = end == std::string::npos ? err.size() : end + 1;
    const std::string line = err.substr(start, end - start);
    if (line.find(": warning: ") == std::string::npos) out += line;
    start = end;
  }
  return out;
}

// 2 * 40^10 points each: counted exactly without constraints and where constraints link a few
// parameters; a lower bound where one constraint reads every parameter.
TEST(Scan, CountsHugeSpacesWithoutVisitingThem) {
  const kev::test_support::ChildrenCpuTimer timer;
  const ScanRun run = scan("specs/huge", "");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, golden("scan_huge.txt"));
  EXPECT_EQ(without_warnings(run.err), "");
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
  EXPECT_LT(timer.seconds(), 1.5);  // both runs
}

TEST(Scan, RejectsHugeSpacesThatAreEmptyOrCannotBeLaunched) {
  const kev::test_support::ChildrenCpuTimer timer;
  const ScanRun run = scan("specs/huge_broken", "");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(without_warnings(run.err),
            "kernelevo: kernelevo.yaml:19:20: error: no valid configuration: the constraints "
            "exclude all 20971520000000000 points of the space\n"
            "kernelevo: kernelevo.yaml:42:45: error: none of the 288 configurations tried can be "
            "launched: integer overflow at '*' in expression \"n * 4 * A\" (first at "
            "A=1,P0=1,P1=1,P2=1,P3=1,P4=1,P5=1,P6=1,P7=1,P8=1,P9=1, problem "
            "n=4611686018427387904)\n"
            "kernelevo: 2 errors in kernel specs\n");
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(Scan, RejectsAnUnknownFormat) {
  const ScanRun run = scan(".", "specs/softmax.cu --format yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
}

// A project with a vendored copy of kernelevo (its templates, and a template whose spec is
// broken) and a build folder: `scan .` and `check .` read only the project's own kernels.
TEST(Scan, SkipsVendoredCopiesAndBuildTrees) {
  namespace fs = std::filesystem;
  using kev::test_support::run_kernelevo;
  using kev::test_support::write_text;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const fs::path vendored = dir / "third_party/kernelevo";
  fs::create_directories(dir / "src");
  fs::create_directories(dir / "build");
  fs::create_directories(vendored / "templates");
  write_text(dir / "CMakeLists.txt",
             "cmake_minimum_required(VERSION 3.24)\nproject(app LANGUAGES CXX CUDA)\n"
             "add_subdirectory(third_party/kernelevo)\n");
  write_text(vendored / "CMakeLists.txt", "project(kernelevo LANGUAGES CXX)\n");
  for (const char* name : {"softmax.cu", "sum.cu", "transpose.cu"})
    fs::copy_file(std::string(KERNELEVO_SOURCE_DIR) + "/templates/" + name,
                  vendored / "templates" / name);
  write_text(vendored / "templates/broken.cu",
             "/* @kernelevo\nkernel: nope\n*/\n__global__ void f(float* x) {}\n");
  fs::copy_file(kFixtures + "/specs/softmax.cu", dir / "src/softmax.cu");
  write_text(dir / "build/CMakeCache.txt", "");
  fs::copy_file(kFixtures + "/specs/softmax.cu", dir / "build/copy.cu");  // a duplicate id

  const std::string skipped =
      "kernelevo: skipped 2 directories (build trees, other projects, vendored code; name one "
      "to scan it): build, third_party\n";
  for (const std::string& path : {std::string("."), std::string("./"), dir.string()}) {
    const auto run = run_kernelevo("scan " + kev::test_support::quoted(path), dir);
    EXPECT_EQ(run.exit_code, 0) << path << ": " << run.err;
    EXPECT_EQ(run.out.rfind("softmax_rows  ", 0), 0u) << path << ": " << run.out;
    EXPECT_EQ(run.out.find("sum_reduce"), std::string::npos) << run.out;
    EXPECT_NE(run.err.find("skipped 2 directories"), std::string::npos) << run.err;
    if (path == ".") {
      EXPECT_EQ(run.err, skipped);
    }
  }
  // No spec error: the check goes on to the GPU (exit 3 without one, 0 with one).
  const auto check = run_kernelevo("check .", dir);
  EXPECT_TRUE(check.exit_code == 0 || check.exit_code == 3) << check.err;
  // Spec errors read "file:line: error: ..."; a machine without a driver names its CUDA error.
  EXPECT_EQ(check.err.find("error:"), std::string::npos) << check.err;
  // A file named on the command line is read wherever it lies.
  const auto named = run_kernelevo("scan third_party/kernelevo/templates/broken.cu", dir);
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_NE(named.err.find("third_party/kernelevo/templates/broken.cu:"), std::string::npos)
      << named.err;
}

// A spec checked against its kernel, inline and from kernelevo.yaml: mismatches exit 2 with
// file:line, an unused parameter or one without an #ifndef default only warns.
TEST(Scan, ChecksTheSpecAgainstTheKernel) {
  namespace fs = std::filesystem;
  using kev::test_support::run_kernelevo;
  using kev::test_support::write_text;
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir);
  const std::string spec =
      "// clang-format off\n/* @kernelevo\nkernel: k\nparams: {B: [64, 128]}\n"
      "problems: [{n: 1024}]\nargs:\n  - {name: y, type: \"float*\", count: n, output: true}\n"
      "  - {name: n, type: int, value: n}\nlaunch: {grid: [\"ceil_div(n, B)\"], block: [B]}\n"
      "*/\n// clang-format on\n";
  write_text(dir / "ok.cu", "#ifndef B\n#define B 64\n#endif\n" + spec +
                                "__global__ void k(float* y, int n) { y[n % B] = 0; }\n");
  write_text(dir / "three.cu", "#ifndef B\n#define B 64\n#endif\n" + spec +
                                   "__global__ void k(float* y, int n, int m) { y[B] = n; }\n");
  write_text(dir / "unused.cu",
             "#define B 64\n" + spec + "__global__ void k(float* y, int n) {}\n");
  write_text(dir / "kernelevo.yaml",
             "- source: plain.cu\n  kernel: plain\n  params: {B: [1]}\n"
             "  args: [{name: y, type: \"float*\", count: 4, output: true}]\n"
             "  launch: {grid: 1, block: B}\n");
  write_text(dir / "plain.cu", "__global__ void plain(int n) { (void)n; }\n");

  const auto ok = run_kernelevo("scan ok.cu", dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.err, "");
  const auto three = run_kernelevo("scan three.cu", dir);
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(three.err,
            "kernelevo: three.cu:10:5: error: the spec lists 2 arguments but kernel `k` "
            "(three.cu:15) takes 3 parameters\nkernelevo: 1 error in kernel specs\n");
  const auto unused = run_kernelevo("scan unused.cu", dir);
  EXPECT_EQ(unused.exit_code, 0);
  EXPECT_EQ(unused.err,
            "kernelevo: unused.cu:5:10: warning: parameter B is never used by unused.cu: tuning it "
            "changes nothing\nkernelevo: unused.cu:5:10: warning: parameter B has no `#ifndef B` "
            "default in unused.cu: add `#ifndef B` / `#define B <value>` / `#endif` so that the "
            "source builds without kernelevo and a tuned value is not redefined\n");
  // Every command that loads specs words their warnings as scan does (not "warning: ...:
  // error: ...").
  for (const char* command : {"check unused.cu", "tune unused.cu --budget 1"}) {
    const auto run = run_kernelevo(command, dir);
    EXPECT_EQ(run.err.rfind("kernelevo: unused.cu:5:10: warning: parameter B is never used", 0), 0u)
        << command << ": " << run.err;
    EXPECT_EQ(run.err.find(": error: parameter B"), std::string::npos)
        << command << ": " << run.err;
  }
  const auto yaml = run_kernelevo("scan kernelevo.yaml", dir);
  EXPECT_EQ(yaml.exit_code, 2);
  EXPECT_NE(yaml.err.find("kernelevo.yaml:4:10: error: argument 'y' is a pointer but parameter 1 "
                          "of kernel `plain` (`int n`, plain.cu:1) is a scalar"),
            std::string::npos)
      << yaml.err;
}

TEST(Scan, MissingPathExitsTwo) {
  const ScanRun run = scan(".", "no/such/dir");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "kernelevo: error: no such file or directory: 'no/such/dir'\nkernelevo: 1 error in "
            "kernel specs\n");
}

}  // namespace
