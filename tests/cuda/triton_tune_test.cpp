// A Triton kernel through the same commands as a CUDA one, with workers that need no GPU
// (tests/fake_worker) and the real Triton compile: tune locks a winner and writes a trace
// whose images carried Triton's launch (32 * num_warps threads, its shared memory, two null
// scratch pointers) while the CUDA reference of softmax.cu carried none; check measures the
// lockfile's winner; compare measures the base revision's build against the head's; the
// trace replays without a GPU or Triton. Skipped without an interpreter with triton
// (KERNELEVO_PYTHON, else the tree's .venv-triton).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compile_test_support.h"
#include "fake_worker_env.h"
#include "support/cli_run.h"

namespace kev::cuda {
namespace {
using testing::TempDir;

std::string triton_python() {
  if (const char* p = std::getenv("KERNELEVO_PYTHON"); p != nullptr && *p != '\0') return p;
  const std::string venv = std::string(KERNELEVO_SOURCE_DIR) + "/.venv-triton/bin/python";
  return std::filesystem::exists(venv) ? venv : "";
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TritonTune, TuneCheckCompareAndReplayWorkAsForCuda) {
  const std::string python = triton_python();
  if (python.empty()) GTEST_SKIP() << "no interpreter with triton (set KERNELEVO_PYTHON)";
  if (std::system(("'" + python + "' -c 'import triton' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << python << " cannot import triton";
  TempDir dir;
  for (const char* name : {"softmax_triton.py", "softmax.cu"})
    std::filesystem::copy_file(testing::source_dir_file(std::string("templates/") + name),
                               dir.file(name));
  const std::string env =
      "KERNELEVO_PYTHON='" + python + "' " +
      testing::fake_worker_env(1, dir.file("cache"),
                               "KERNELEVO_FAKE_LAUNCH_LOG='" + dir.file("launch.log") + "'");
  const auto tune = test_support::run_kernelevo(
      "tune softmax_triton.py --strategy random --budget 3 --format json --lockfile lock.json "
      "--trace t.jsonl",
      dir.path(), env);
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  const auto report = nlohmann::json::parse(tune.out);
  // The template dispatches by cols (one bucket per listed value): a search per bucket.
  ASSERT_EQ(report["kernels"].size(), 3u) << tune.out;
  for (const auto& k : report["kernels"]) {
    EXPECT_EQ(k["evaluations"], 3) << tune.out;
    EXPECT_FALSE(k["winner"].is_null()) << tune.out;
  }

  std::ifstream lock_in(dir.file("lock.json"));
  const auto lock = nlohmann::json::parse(lock_in);
  const auto& entry = lock["kernels"]["softmax_rows_triton"];
  EXPECT_EQ(entry["source"], "softmax_triton.py");
  ASSERT_TRUE(entry["targets"]["sm_90"].contains("Fake H200")) << lock.dump(2);
  const auto& device = entry["targets"]["sm_90"]["Fake H200"];
  EXPECT_EQ(device["by"], "cols") << lock.dump(2);
  ASSERT_EQ(device["buckets"].size(), 3u) << lock.dump(2);
  for (const auto& b : device["buckets"]) EXPECT_TRUE(b["params"].contains("num_warps"));

  // Every run: the Triton image with its launch, the CUDA reference with none.
  const auto launches = lines_of(dir.file("launch.log"));
  ASSERT_GE(launches.size(), 12u);  // per bucket: the baseline, three evaluations
  for (const auto& l : launches) {
    std::istringstream in(l);
    std::string fn, block, shared, trailing, ref_fn, ref_block, ref_shared, ref_trailing;
    in >> fn >> block >> shared >> trailing >> ref_fn >> ref_block >> ref_shared >> ref_trailing;
    EXPECT_EQ(fn, "softmax_rows_triton") << l;
    EXPECT_NE(block, "-") << l;
    EXPECT_EQ(std::stoi(block) % 32, 0) << l;
    EXPECT_NE(shared, "-") << l;
    EXPECT_EQ(trailing, "2") << l;
    EXPECT_EQ(ref_fn, "softmax_rows_naive") << l;
    EXPECT_EQ(ref_block, "-") << l;
    EXPECT_EQ(ref_trailing, "0") << l;
  }

  const auto check =
      test_support::run_kernelevo("check softmax_triton.py --lockfile lock.json", dir.path(), env);
  EXPECT_EQ(check.exit_code, 0) << check.err << check.out;

  // compare: the base revision (a git worktree) against the head, both compiled by Triton.
  ASSERT_EQ(std::system(("cd '" + dir.path() +
                         "' && git init -q && git add softmax_triton.py softmax.cu lock.json && "
                         "git -c user.email=t@t -c user.name=t commit -qm base")
                            .c_str()),
            0);
  std::filesystem::remove(dir.file("launch.log"));
  const auto compare = test_support::run_kernelevo(
      "compare softmax_triton.py --base HEAD --lockfile lock.json --rounds 2", dir.path(), env);
  EXPECT_EQ(compare.exit_code, 0) << compare.err << compare.out;
  EXPECT_NE(compare.out.find("softmax_rows_triton"), std::string::npos) << compare.out;
  const auto compared = lines_of(dir.file("launch.log"));
  EXPECT_GE(compared.size(), 4u);  // both sides, two rounds each
  for (const auto& l : compared) {
    EXPECT_EQ(l.rfind("softmax_rows_triton ", 0), 0u) << l;
    EXPECT_NE(l.find(" 2 softmax_rows_naive "), std::string::npos) << l;
  }

  // The trace replays with no worker and no Triton.
  const auto replay =
      test_support::run_kernelevo("tune --replay t.jsonl --strategy random --budget 3", dir.path(),
                                  "KERNELEVO_PYTHON=/nonexistent");
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
}

TEST(TritonTune, WithoutTritonTuneSaysSoBeforeAnyGpu) {
  TempDir dir;
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax_triton.py"),
                             dir.file("softmax_triton.py"));
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const auto run = test_support::run_kernelevo("tune softmax_triton.py --budget 2", dir.path(),
                                               "KERNELEVO_PYTHON=/nonexistent/python");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("Triton not found: set KERNELEVO_PYTHON to an interpreter with triton"),
            std::string::npos)
      << run.err;
  const auto build =
      test_support::run_kernelevo("triton-build --source softmax_triton.py --out-dir out",
                                  dir.path(), "KERNELEVO_PYTHON=/nonexistent/python");
  EXPECT_EQ(build.exit_code, 3);
}

}  // namespace
}  // namespace kev::cuda
