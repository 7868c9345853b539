// Planted kernels that behave one way while verified and another while timed (the red-team
// suite's second half, beside redteam_test.cpp's eleven). Each must be rejected, or timed
// doing the honest work, while the same worker carries on to the next variant. Where the
// cheat needs the old single-set timing to pay, the test shows that too (timing_sets = 1).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::elementwise_spec;

// y[i] = heavy(x[i]): about 1000 dependent FMAs per element, far from memory-bound.
constexpr const char* kPrelude = R"(
#define IDX const int i = blockIdx.x * blockDim.x + threadIdx.x
__device__ __forceinline__ float heavy(float v) {
  float a = v;
  for (int k = 0; k < 1000; ++k) a = fmaf(a, 0.9990234375f, 0.0009765625f * v);
  return a;
}
// The last block of a launch to finish (every other block has read what it needed).
__device__ unsigned kev_done;
__device__ __forceinline__ bool last_block() {
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&kev_done, 1u) == gridDim.x - 1;
    if (last) kev_done = 0;
  }
  __syncthreads();
  return last;
}
__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ float kev_cache[1 << 22];
__device__ float kev_key[16];
__device__ unsigned kev_valid;
__device__ unsigned long long kev_last_end;
__device__ unsigned kev_launches;
)";

// name -> body of `extern "C" __global__ void name(const float* x, float* y, int n)`.
const std::map<std::string, std::string>& variants() {
  static const std::map<std::string, std::string> v{
      {"honest_heavy", "IDX; if (i < n) y[i] = heavy(x[i]);"},
      {"honest_light", "IDX; if (i < n) y[i] = 2.0f * x[i] + 1.0f;"},
      // Memoized across launches, keyed by the input's first four elements.
      {"l_memo_first_elements",
       "IDX; const bool hit = kev_valid == (unsigned)n && x[0] == kev_key[0] && x[1] == kev_key[1]"
       " && x[2] == kev_key[2] && x[3] == kev_key[3];"
       " if (i < n) { const float r = hit ? kev_cache[i] : heavy(x[i]); y[i] = r;"
       " if (!hit) kev_cache[i] = r; }"
       " if (last_block() && threadIdx.x == 0) { for (int k = 0; k < 4; ++k) kev_key[k] = x[k];"
       " kev_valid = n; }"},
      // Memoized, keyed by sixteen elements spread over the whole input.
      {"m_memo_spread_hash",
       "IDX; bool hit = kev_valid == (unsigned)n;"
       " for (int k = 0; k < 16 && hit; ++k) hit = x[(long long)k * (n / 16)] == kev_key[k];"
       " if (i < n) { const float r = hit ? kev_cache[i] : heavy(x[i]); y[i] = r;"
       " if (!hit) kev_cache[i] = r; }"
       " if (last_block() && threadIdx.x == 0) { for (int k = 0; k < 16; ++k)"
       " kev_key[k] = x[(long long)k * (n / 16)]; kev_valid = n; }"},
      // Does nothing when the input looks as it did at the previous launch.
      {"n_skip_when_input_unchanged",
       "IDX; bool same = kev_valid == (unsigned)n;"
       " for (int k = 0; k < 16 && same; ++k) same = x[(long long)k * (n / 16)] == kev_key[k];"
       " if (!same && i < n) y[i] = heavy(x[i]);"
       " if (last_block() && threadIdx.x == 0) { for (int k = 0; k < 16; ++k)"
       " kev_key[k] = x[(long long)k * (n / 16)]; kev_valid = n; }"},
      // Skips half its blocks when it starts within 8 us of the previous launch's end (which
      // its last block records): the rhythm of launches timed back to back, read from
      // %globaltimer.
      {"o_skip_back_to_back",
       "IDX; const unsigned long long start = now_ns(); const unsigned long long last = "
       "kev_last_end;"
       " const bool rushed = last != 0 && start > last && start - last < 8000ull;"
       " if (i < n && !(rushed && (blockIdx.x & 1))) y[i] = 2.0f * x[i] + 1.0f;"
       " if (last_block() && threadIdx.x == 0) kev_last_end = now_ns();"},
      // Compute-bound, skips every other block from its fifth launch to its sixtieth: after
      // the verification rounds and warm-up, before the check after timing.
      {"p_skip_half_while_timed",
       "IDX; const unsigned seen = kev_launches; const bool timed = seen >= 4 && seen < 60;"
       " if (i < n && !(timed && (blockIdx.x & 1))) y[i] = heavy(x[i]);"
       " if (last_block() && threadIdx.x == 0) kev_launches = seen + 1;"},
  };
  return v;
}

std::string source_of(const std::string& name) {
  return std::string(kPrelude) + "extern \"C\" __global__ void " + name +
         "(const float* x, float* y, int n) { " + variants().at(name) + " }\n";
}

class TimingCheats : public ::testing::Test {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    arch_ = gpu_test::device_arch();
    heavy_ = compile_kernel(source_of("honest_heavy"), "honest_heavy", arch_);
    light_ = compile_kernel(source_of("honest_light"), "honest_light", arch_);
  }
  RunRequest request_for(const std::string& name, int timing_sets = 0,
                         double batch_below_us = 20.0) {
    RunRequest r;
    r.spec = elementwise_spec();
    r.candidate = compile_kernel(source_of(name), name, arch_);
    r.reference = name.rfind("o_", 0) == 0 || name == "honest_light" ? light_ : heavy_;
    r.timing.timeout_seconds = 10.0;
    r.timing.min_seconds = 0.02;
    r.timing.timing_sets = timing_sets;
    r.timing.batch_below_us = batch_below_us;
    return r;
  }
  RunReport run(cuda::WorkerRunner& worker, const std::string& name, int timing_sets = 0,
                double batch_below_us = 20.0) {
    RunReport report = worker.run(request_for(name, timing_sets, batch_below_us));
    std::printf("[timing-cheat] %-28s sets=%d -> %-10s %8.1f us  %s\n", name.c_str(), timing_sets,
                to_string(report.outcome.disposition), report.outcome.time_us.value_or(0.0),
                report.outcome.detail.c_str());
    return report;
  }
  std::string arch_;
  KernelImage heavy_;
  KernelImage light_;
};

TEST_F(TimingCheats, MemoizersAreTimedDoingTheWorkAndWouldWinWithOneSet) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const RunReport honest = run(worker, "honest_heavy");
  ASSERT_EQ(to_string(honest.outcome.disposition), std::string("passed")) << honest.outcome.detail;
  const double honest_us = *honest.outcome.time_us;
  for (const char* name : {"l_memo_first_elements", "m_memo_spread_hash"}) {
    SCOPED_TRACE(name);
    // With one input set the cheat pays: what the rotation is for.
    const RunReport single = run(worker, name, 1);
    ASSERT_TRUE(single.outcome.time_us.has_value()) << single.outcome.detail;
    EXPECT_LT(*single.outcome.time_us, 0.8 * honest_us);
    // Rotating sets: it either fails or is timed doing the work.
    const RunReport report = run(worker, name);
    if (report.outcome.passed()) {
      EXPECT_GT(*report.outcome.time_us, 0.9 * honest_us);
    } else {
      EXPECT_EQ(to_string(report.outcome.disposition), std::string("incorrect"));
    }
    EXPECT_TRUE(run(worker, "honest_heavy").outcome.passed());
  }
}

TEST_F(TimingCheats, SkippingWorkWhileTimedIsCaughtInTheTimedLaunches) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const RunReport honest = run(worker, "honest_heavy");
  ASSERT_TRUE(honest.outcome.passed()) << honest.outcome.detail;
  // Skip-when-unchanged: with one set, the timed launches' outputs are checked and found
  // unwritten; with rotating sets the input always changed, so it does the work.
  const RunReport unchanged_single = run(worker, "n_skip_when_input_unchanged", 1);
  EXPECT_EQ(to_string(unchanged_single.outcome.disposition), std::string("incorrect"));
  EXPECT_NE(unchanged_single.outcome.detail.find("timed launch"), std::string::npos)
      << unchanged_single.outcome.detail;
  const RunReport unchanged = run(worker, "n_skip_when_input_unchanged");
  if (unchanged.outcome.passed())
    EXPECT_GT(*unchanged.outcome.time_us, 0.9 * *honest.outcome.time_us);
  else
    EXPECT_EQ(to_string(unchanged.outcome.disposition), std::string("incorrect"));
  EXPECT_TRUE(run(worker, "honest_heavy").outcome.passed());

  // Compute-bound, half its blocks skipped while timed: far below any bandwidth bound.
  const RunReport half = run(worker, "p_skip_half_while_timed");
  EXPECT_EQ(to_string(half.outcome.disposition), std::string("incorrect"));
  EXPECT_NE(half.outcome.detail.find("timed launch"), std::string::npos) << half.outcome.detail;
  EXPECT_TRUE(run(worker, "honest_heavy").outcome.passed());

  // A few microseconds, timed in batches back to back: the rhythm gives it away. (Its own
  // bookkeeping makes the cheat slower than 20 us: both are batched below 60 us here.)
  const RunReport light = run(worker, "honest_light", 0, 60.0);
  ASSERT_TRUE(light.outcome.passed()) << light.outcome.detail;
  ASSERT_FALSE(light.problems.empty());
  EXPECT_GT(light.problems[0].launches_per_sample, 1) << "not timed in batches";
  const RunReport rushed = run(worker, "o_skip_back_to_back", 0, 60.0);
  EXPECT_EQ(to_string(rushed.outcome.disposition), std::string("incorrect"));
  EXPECT_NE(rushed.outcome.detail.find("batched timing"), std::string::npos)
      << rushed.outcome.detail;
  EXPECT_TRUE(run(worker, "honest_light", 0, 60.0).outcome.passed());
}

}  // namespace
}  // namespace kev
