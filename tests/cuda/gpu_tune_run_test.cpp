// The whole tune run in-process on the GPU backend (cuda/gpu_backend.h) with a fake
// compiler and fake workers (tests/support/fakes.h): the real GpuEvaluator compiles through
// the compiler the source needs, measures the baseline, shares one search between GPUs and
// the winner is locked.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "compile_test_support.h"
#include "core/spec_space.h"
#include "core/tune_run.h"
#include "cuda/gpu_backend.h"
#include "cuda/gpu_evaluator.h"
#include "support/fakes.h"

namespace kev::cuda {
namespace {

using kev::testing::FakeCompiler;
using kev::testing::FakeRunner;
using kev::testing::FakeTuneConsole;
using kev::testing::FakeTuneStore;
using testing::TempDir;

std::int64_t x_of(const ParamSet& p) { return p.at("X").as_int().value_or(0); }

class GpuTuneRunTest : public ::testing::Test {
 protected:
  KernelSpec spec_for(const std::string& source_text) {
    dir_.write("k.cu", source_text);
    KernelSpec spec;
    spec.id = "k";
    spec.kernel = "k";
    spec.source = dir_.file("k.cu");
    ParamSpec x;
    x.name = "X";
    for (std::int64_t v = 1; v <= 8; ++v) x.values.emplace_back(v);
    spec.params = {x};
    return spec;
  }
  Result<std::vector<KernelRow>> tune(const KernelSpec& spec, const std::vector<int>& gpus,
                                      DeviceCodeCompiler device_code = DeviceCodeCompiler::nvcc) {
    // Kept by the fixture: the runners it owns are read after the run.
    backend_ = make_tune_backend(nvrtc_, nvcc_, [this](int gpu) -> std::unique_ptr<Runner> {
      auto runner = std::make_unique<FakeRunner>(gpu);
      runner->time_of = [](const ParamSet& p) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return 100.0 / static_cast<double>(x_of(p));
      };
      runners_.push_back(runner.get());
      return runner;
    });
    auto devices = open_devices(*backend_, gpus, console_);
    EXPECT_TRUE(devices.ok());
    TuneRunOptions options;
    options.strategy = "exhaustive";
    options.device_code = device_code;
    return tune_kernels({&spec}, *devices, *backend_, store_, console_, options);
  }

  TempDir dir_;
  FakeCompiler nvrtc_;
  FakeCompiler nvcc_;
  std::unique_ptr<TuneBackend> backend_;  // after the compilers it uses: destroyed first
  std::vector<FakeRunner*> runners_;      // owned by backend_
  FakeTuneStore store_;
  FakeTuneConsole console_;
};

// A CMake build compiles the winner with nvcc, and NVRTC may allocate registers otherwise
// (measured: one spilled where the other did not, 8% apart), so nvcc's code is what is timed.
TEST_F(GpuTuneRunTest, ADeviceOnlySourceIsTunedThroughNvccAsTheBuildCompilesItOnTwoGpusAndLocked) {
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0, 1});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.exit_code, 0) << row.failure;
  EXPECT_EQ(row.baseline_us, 100.0);  // the source's default X=1
  ASSERT_TRUE(row.winner);
  EXPECT_EQ(x_of(*row.winner), 8);
  EXPECT_EQ(row.evaluations, 8u);
  EXPECT_EQ(row.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(row.lock, LockAction::locked);
  ASSERT_EQ(runners_.size(), 2u);
  EXPECT_GT(runners_[0]->runs.load(), 0);
  EXPECT_GT(runners_[1]->runs.load(), 0);
  EXPECT_GT(nvcc_.calls.load(), 0);
  EXPECT_EQ(nvrtc_.calls.load(), 0);
  EXPECT_EQ(store_.writes, 1);
  ASSERT_EQ(store_.lock.kernels.size(), 1u);
  const auto& entry = store_.lock.kernels.begin()->second.targets.begin()->second.begin()->second;
  EXPECT_EQ(entry.tuned_with.find("NVRTC"), std::string::npos) << entry.tuned_with;
}

// A one-size bucket's sized choice asks for its compiles before the baseline is measured (the
// source not yet read): they are of the source, and evaluate_params takes them, not compiling
// again.
TEST_F(GpuTuneRunTest, ParameterSetsCompiledAheadOfTheBaselineAreTheSourcesAndNotCompiledTwice) {
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  SpecSpace space(spec, spec.problems);
  FakeRunner runner;
  GpuEvaluator evaluator(spec, space, nvcc_, runner, {});
  evaluator.prefetch_params({{{"X", Value(3)}}, {{"X", Value(5)}}});
  auto base = evaluator.measure_baseline();
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_EQ(evaluator.evaluate_params({{"X", Value(5)}}).time_us, 10.0);
  EXPECT_EQ(evaluator.evaluate_params({{"X", Value(3)}}).time_us, 10.0);
  EXPECT_EQ(nvcc_.calls.load(), 3);  // the baseline's, and X = 3 and 5 once each
  ASSERT_EQ(runner.images.size(), 3u);
  EXPECT_EQ(runner.images[1], "IMAGE:#define X 1\n__global__ void k(float* y) { y[0] = X; }\n;X=5");
  // Not asked for ahead: compiled now.
  EXPECT_EQ(evaluator.evaluate_params({{"X", Value(3)}}).time_us, 10.0);
  EXPECT_EQ(nvcc_.calls.load(), 4);
}

// A bucket's seeds are prefetched before its baseline is measured: compiled from the source
// and taken by the search's evaluation.
TEST_F(GpuTuneRunTest, PointsCompiledAheadOfTheBaselineAreTheSourcesAndNotCompiledTwice) {
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  SpecSpace space(spec, spec.problems);
  FakeRunner runner;
  GpuEvaluator evaluator(spec, space, nvcc_, runner, {});
  const auto seed = space.from_params({{"X", Value(6)}});
  ASSERT_TRUE(seed.has_value());
  evaluator.prefetch({*seed});
  ASSERT_TRUE(evaluator.measure_baseline().ok());
  EXPECT_TRUE(evaluator.evaluate(*seed).passed());
  EXPECT_EQ(nvcc_.calls.load(), 2);  // the baseline's and X = 6's
  ASSERT_EQ(runner.images.size(), 2u);
  EXPECT_EQ(runner.images[1], "IMAGE:#define X 1\n__global__ void k(float* y) { y[0] = X; }\n;X=6");
}

// A decode kernel of 12 us is launched between other work, its code and data cold: timed back
// to back in batches it ranked schedules otherwise than a lone launch does (measured on an
// H200: the batched winner 17.8 us alone, another schedule 13.3). `timing: alone` asks for
// lone launches for the baseline and every candidate.
TEST_F(GpuTuneRunTest, ASpecThatSaysTimingAloneIsTimedWithoutBatchesThroughout) {
  KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  spec.time_alone = true;
  auto rows = tune(spec, {0});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->front().exit_code, 0) << rows->front().failure;
  ASSERT_EQ(runners_.size(), 1u);
  EXPECT_GT(runners_[0]->runs.load(), 8);  // the baseline and eight candidates
  EXPECT_EQ(runners_[0]->runs_batching_short_launches.load(), 0);
}

TEST_F(GpuTuneRunTest, ByDefaultShortLaunchesMayBeTimedInBatches) {
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(runners_.size(), 1u);
  EXPECT_GT(runners_[0]->runs.load(), 0);
  EXPECT_EQ(runners_[0]->runs_batching_short_launches.load(), runners_[0]->runs.load());
}

TEST_F(GpuTuneRunTest, CompilerNvrtcTunesADeviceOnlySourceThroughNvrtcAndSaysSoInTheEntry) {
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0}, DeviceCodeCompiler::nvrtc);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->front().exit_code, 0) << rows->front().failure;
  EXPECT_GT(nvrtc_.calls.load(), 0);
  EXPECT_EQ(nvcc_.calls.load(), 0);
  ASSERT_EQ(store_.lock.kernels.size(), 1u);
  const auto& entry = store_.lock.kernels.begin()->second.targets.begin()->second.begin()->second;
  EXPECT_NE(entry.tuned_with.find("NVRTC"), std::string::npos) << entry.tuned_with;
}

TEST_F(GpuTuneRunTest, CompilerNvrtcStillSendsASourceWithHostCodeToNvcc) {
  const KernelSpec spec =
      spec_for("#include <vector>\n#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0}, DeviceCodeCompiler::nvrtc);
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_GT(nvcc_.calls.load(), 0);
  EXPECT_EQ(nvrtc_.calls.load(), 0);
}

TEST_F(GpuTuneRunTest, ASourceWithHostCodeIsCompiledByNvcc) {
  const KernelSpec spec =
      spec_for("#include <vector>\n#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->front().exit_code, 0) << rows->front().failure;
  EXPECT_GT(nvcc_.calls.load(), 0);
  EXPECT_EQ(nvrtc_.calls.load(), 0);
}

TEST_F(GpuTuneRunTest, ASourceThatDoesNotCompileIsARowWithTheError) {
  nvcc_.fail = true;
  const KernelSpec spec = spec_for("#define X 1\n__global__ void k(float* y) { y[0] = X; }\n");
  auto rows = tune(spec, {0});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().exit_code, static_cast<int>(ExitCode::usage));
  EXPECT_NE(rows->front().failure.find("does not compile with its own defaults"),
            std::string::npos);
  EXPECT_EQ(store_.writes, 0);
}

}  // namespace
}  // namespace kev::cuda
