// `kernelevo tune --shard I/N` and `--gpus`: the parts decided before any GPU is touched.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.h"

namespace {

const std::string kFixtures = KERNELEVO_FIXTURES;

using TuneRun = kev::test_support::CommandRun;

TuneRun tune(const std::string& args) {
  return kev::test_support::run_kernelevo("tune " + args, kFixtures);
}

bool built_without_cuda(const TuneRun& run) {
  return run.err.find("built without CUDA") != std::string::npos;
}

TEST(TuneShard, MalformedShardIsAUsageError) {
  for (const char* bad : {"0/4", "5/4", "2", "a/b"}) {
    const TuneRun run = tune(std::string("specs/softmax.cu --shard ") + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_NE(run.err.find("I/N"), std::string::npos) << run.err;
  }
}

TEST(TuneShard, NotWithReplay) {
  const TuneRun run = tune("--replay x.jsonl --shard 1/2");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--shard"), std::string::npos) << run.err;
}

TEST(TuneShard, AShardWithoutKernelsSucceedsWithoutTuning) {
  // Three kernels (add_in_place, scale_f32, softmax_rows): a fourth shard has none.
  const TuneRun run = tune("specs/softmax.cu specs/project --shard 4/4");
  if (built_without_cuda(run)) GTEST_SKIP() << "built without CUDA";
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("shard 4/4: 0 of 3 kernels"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(TuneShard, MalformedGpuListIsAUsageError) {
  for (const char* bad : {"first", "0,,1", "-1", "0,", "1;2"}) {
    const TuneRun run = tune(std::string("specs/softmax.cu --gpus '") + bad + "'");
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_NE(run.err.find("expected all, a GPU index"), std::string::npos)
        << bad << ": " << run.err;
  }
}

}  // namespace
