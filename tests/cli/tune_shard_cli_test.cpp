// `kernelevo tune --shard I/N` and `--gpus`: the parts decided before any GPU is touched.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const std::string kFixtures = KERNELEVO_FIXTURES;

struct TuneRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

TuneRun tune(const std::string& args) {
  const std::string err_file =
      (std::filesystem::temp_directory_path() / ("kernelevo_tune_shard_" + std::to_string(::getpid()) + ".err"))
          .string();
  const std::string command = "cd '" + kFixtures + "' && '" + KERNELEVO_BINARY + "' tune " + args + " 2>'" +
                              err_file + "'";
  TuneRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::ostringstream ss;
  ss << in.rdbuf();
  run.err = ss.str();
  std::filesystem::remove(err_file);
  return run;
}

bool built_without_cuda(const TuneRun& run) { return run.err.find("built without CUDA") != std::string::npos; }

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
    EXPECT_NE(run.err.find("expected all, a GPU index"), std::string::npos) << bad << ": " << run.err;
  }
}

}  // namespace
