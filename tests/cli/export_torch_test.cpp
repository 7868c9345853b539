// `kernelevo export --torch`, run as the built binary on tests/fixtures/torch_export/gated.cu:
// the package it writes (its __init__.py against a golden file; the cubins need the toolkit,
// not a GPU), the source defaults for an architecture without an entry, and the errors:
// unknown kernel, no lockfile entry, a bad --out, --archs or --package, and a lockfile value
// the spec does not list. KERNELEVO_UPDATE_GOLDEN=1 rewrites the golden file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "support/cli_run.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

using test_support::CommandRun;
using test_support::quoted;
using test_support::read_text;
using test_support::run_kernelevo;
using test_support::write_text;

const fs::path kFixtures = fs::path(KERNELEVO_FIXTURES) / "torch_export";
const fs::path kGolden = fs::path(KERNELEVO_FIXTURES) / "golden";

class ExportTorch : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("kev_cli_export_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy_file(kFixtures / "gated.cu", dir_ / "gated.cu");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void with_lockfile() {
    fs::copy_file(kFixtures / "gated.lock.json", dir_ / "kernelevo.lock.json");
  }
  // The run, skipped where this kernelevo has no CUDA (exit 3: it cannot compile).
  CommandRun exported(const std::string& args) {
    CommandRun r = run_kernelevo("export --torch gated " + args, dir_);
    if (r.exit_code == 3 && r.err.find("built without CUDA") != std::string::npos) skipped_ = true;
    return r;
  }
  fs::path dir_;
  bool skipped_ = false;
};

TEST_F(ExportTorch, WritesThePackage) {
  with_lockfile();
  const CommandRun r = exported("--out pkgs");
  if (skipped_) GTEST_SKIP() << "no CUDA in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "pkgs/gated: gated for sm_80 (kernelevo.lock.json: sm_80 NVIDIA A100-SXM4-80GB "
            "(only device)), sm_90 (kernelevo.lock.json: sm_90 NVIDIA H200 (only device))\n");
  EXPECT_EQ(r.err, "");  // the lockfile's hash is the fixture's: no stale warning
  const fs::path pkg = dir_ / "pkgs" / "gated";
  for (const char* f :
       {"kernel.json", "_runtime.py", "_spec_expr.py", "_cuda_launch.py", "_buckets.py", "test.py",
        "bench.py", "cubins/sm_80.0.cubin", "cubins/sm_90.1.cubin", "cubins/sm_90.reference.cubin"})
    EXPECT_TRUE(fs::exists(pkg / f)) << f;
  EXPECT_FALSE(fs::exists(pkg / "_equivalent.py"));
  const std::string init = read_text(pkg / "__init__.py");
  if (std::getenv("KERNELEVO_UPDATE_GOLDEN"))
    write_text(kGolden / "export_torch_gated.__init__.py", init);
  EXPECT_EQ(init, read_text(kGolden / "export_torch_gated.__init__.py"));
  const std::string json = read_text(pkg / "kernel.json");
  EXPECT_NE(json.find("\"by\": \"hidden\""), std::string::npos);
  EXPECT_NE(json.find("\"function\": \"gated_naive\""), std::string::npos);

  // Exporting again replaces the package; --torch-equivalent copies the file in.
  write_text(dir_ / "eq.py", "def torch_equivalent(kernel, a, d):\n    return None\n");
  const CommandRun again = exported("--out pkgs --torch-equivalent eq.py");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(pkg / "_equivalent.py"), read_text(dir_ / "eq.py"));
  EXPECT_NE(read_text(pkg / "kernel.json").find("\"equivalent\": \"eq.py\""), std::string::npos);
}

// The cubins come from the compiler whose code the entry's times are of: an entry tuned with
// `--compiler nvrtc` exports NVRTC's cubin, the others nvcc's (the two compilers' images of
// one source differ in their bytes).
TEST_F(ExportTorch, AnEntryCompiledByNvrtcExportsNvrtcsCubin) {
  with_lockfile();
  const CommandRun nvcc = exported("--out a");
  if (skipped_) GTEST_SKIP() << "no CUDA in this build";
  ASSERT_EQ(nvcc.exit_code, 0) << nvcc.err;
  std::string lock = read_text(dir_ / "kernelevo.lock.json");
  const auto at = lock.find("\"NVIDIA H200\": {");
  ASSERT_NE(at, std::string::npos);
  lock.insert(at + std::string("\"NVIDIA H200\": {").size(), "\"compiler\": \"nvrtc\", ");
  write_text(dir_ / "kernelevo.lock.json", lock);
  const CommandRun nvrtc = exported("--out b");
  ASSERT_EQ(nvrtc.exit_code, 0) << nvrtc.err;
  EXPECT_NE(read_text(dir_ / "a/gated/cubins/sm_90.1.cubin"),
            read_text(dir_ / "b/gated/cubins/sm_90.1.cubin"));
  EXPECT_EQ(read_text(dir_ / "a/gated/cubins/sm_80.0.cubin"),
            read_text(dir_ / "b/gated/cubins/sm_80.0.cubin"));
}

TEST_F(ExportTorch, AOneSizeBucketsWinnerIsCompiledWithItsSizeDefined) {
  with_lockfile();
  // The source leaves a symbol in the cubin where the bucket's size define reached it.
  write_text(dir_ / "gated.cu", read_text(dir_ / "gated.cu") +
                                    "\n#ifdef KERNELEVO_SIZE_hidden\n__device__ int "
                                    "kev_size_seen = KERNELEVO_SIZE_hidden;\n#endif\n");
  std::string lock = read_text(dir_ / "kernelevo.lock.json");
  const auto at = lock.find("\"range\": [0, 512]");
  ASSERT_NE(at, std::string::npos);
  lock.replace(at, std::string("\"range\": [0, 512]").size(), "\"range\": [256, 257]");
  write_text(dir_ / "kernelevo.lock.json", lock);
  const CommandRun r = exported("--out pkgs");
  if (skipped_) GTEST_SKIP() << "no CUDA in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path cubins = dir_ / "pkgs/gated/cubins";
  EXPECT_NE(read_text(cubins / "sm_90.0.cubin").find("kev_size_seen"), std::string::npos);
  EXPECT_EQ(read_text(cubins / "sm_90.1.cubin").find("kev_size_seen"), std::string::npos);
  EXPECT_EQ(read_text(cubins / "sm_80.0.cubin").find("kev_size_seen"), std::string::npos);
  const std::string manifest = read_text(dir_ / "pkgs/gated/kernel.json");
  EXPECT_NE(manifest.find("\"size_define\": \"KERNELEVO_SIZE_hidden=256\""), std::string::npos)
      << manifest;

  // A bucket tune found faster without its size define is exported without it.
  lock.replace(lock.find("\"range\": [256, 257]"), std::string("\"range\": [256, 257]").size(),
               "\"range\": [256, 257], \"sized\": false");
  lock.replace(lock.find("\"schema_version\": 3"), std::string("\"schema_version\": 3").size(),
               "\"schema_version\": 4");
  write_text(dir_ / "kernelevo.lock.json", lock);
  const CommandRun unsized = exported("--out unsized");
  ASSERT_EQ(unsized.exit_code, 0) << unsized.err;
  EXPECT_EQ(read_text(dir_ / "unsized/gated/cubins/sm_90.0.cubin").find("kev_size_seen"),
            std::string::npos);
  EXPECT_EQ(read_text(dir_ / "unsized/gated/kernel.json").find("KERNELEVO_SIZE"),
            std::string::npos);
}

TEST_F(ExportTorch, AnArchitectureWithoutAnEntryGetsTheSourceDefaults) {
  with_lockfile();
  const CommandRun r = exported("--archs sm_75,sm_90 --package gated_op --out pkgs");
  if (skipped_) GTEST_SKIP() << "no CUDA in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "kernelevo: warning: gated: no entry for sm_75 in kernelevo.lock.json; exporting its "
            "source defaults\n");
  const std::string json = read_text(dir_ / "pkgs" / "gated_op" / "kernel.json");
  EXPECT_NE(json.find("\"choice\": \"source defaults (no entry in kernelevo.lock.json)\""),
            std::string::npos);
  EXPECT_NE(json.find("\"package\": \"gated_op\""), std::string::npos);
}

TEST_F(ExportTorch, NoLockfileEntryIsAnErrorUnlessArchitecturesAreNamed) {
  CommandRun r = run_kernelevo("export --torch gated", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gated.cu:18:4: error: no lockfile at kernelevo.lock.json, so no entry for "
                       "gated: tune it first (kernelevo tune), or name the architectures to "
                       "export with --archs sm_90"),
            std::string::npos)
      << r.err;
  write_text(dir_ / "other.lock.json", "{\"kernels\": {}, \"schema_version\": 1}\n");
  r = run_kernelevo("export --torch gated --lockfile other.lock.json", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("other.lock.json has no entry for gated: tune it first"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "gated"));
}

TEST_F(ExportTorch, UnknownKernel) {
  const CommandRun r = run_kernelevo("export --torch nope --archs sm_90", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernelevo: error: no kernel with id 'nope'\n");
}

TEST_F(ExportTorch, BadOut) {
  write_text(dir_ / "afile", "x");
  CommandRun r = run_kernelevo("export --torch gated --archs sm_90 --out afile", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernelevo: error: --out afile is not a directory\n");
  fs::create_directories(dir_ / "pkgs" / "gated");
  write_text(dir_ / "pkgs" / "gated" / "mine.py", "x = 1\n");
  r = exported("--archs sm_90 --out pkgs");
  if (skipped_) GTEST_SKIP() << "no CUDA in this build";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pkgs/gated exists and is not a package kernelevo exported"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "pkgs" / "gated" / "mine.py"));
}

TEST_F(ExportTorch, BadArchsAndPackage) {
  CommandRun r = run_kernelevo("export --torch gated --archs sm_x", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'x' is not a CUDA architecture"), std::string::npos) << r.err;
  r = run_kernelevo("export --torch gated --archs sm_90 --package 'os; import x'", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kernelevo: error: the package name 'os; import x' is not a Python identifier\n");
}

TEST_F(ExportTorch, ALockedValueTheSpecDoesNotListIsAnError) {
  std::string lock = read_text(kFixtures / "gated.lock.json");
  lock.replace(lock.find("\"GATED_BLOCK\": 256}"), 19, "\"GATED_BLOCK\": 999}");
  write_text(dir_ / "kernelevo.lock.json", lock);
  const CommandRun r = run_kernelevo("export --torch gated --out pkgs", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kernelevo.lock.json: gated sm_80 NVIDIA A100-SXM4-80GB"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("999"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "pkgs" / "gated"));
}

// Every locked value listed, the combination excluded by a constraint: refused, not compiled.
TEST_F(ExportTorch, ALockedCombinationBreakingAConstraintIsAnError) {
  std::string source = read_text(dir_ / "gated.cu");
  source.replace(source.find("problems:"), 9,
                 "constraints:\n  - \"GATED_BLOCK * GATED_UNROLL <= 128\"\nproblems:");
  write_text(dir_ / "gated.cu", source);
  with_lockfile();
  const CommandRun r = run_kernelevo("export --torch gated --out pkgs", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("break the constraint \"GATED_BLOCK * GATED_UNROLL <= 128\""),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "pkgs" / "gated"));
}

}  // namespace
}  // namespace kev
