// A timed launch starts with its code cold too: the flush runs other code on every SM before
// the kernel, as any real program's other kernels would. Without that, a kernel with a large
// body found its instructions still cached from its previous launch and was timed as if it
// ran back to back: the batch-1 decode attention looked 1.5x faster to the tuner than to
// bench/templates' comparison, and the tuner picked the wrong schedule
// (bench/results/2026-12-07-code-cold-h100).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;

// y = 2x + 1 after a chain of 2048 dependent FMA pairs that never changes y: unrolled into
// 64 KiB of straight-line code, or kept a loop of a few instructions.
constexpr const char* kSource = R"(
#define CHAIN                                  \
  for (int k = 0; k < 2048; ++k) {             \
    a = fmaf(a, 1.0001f + k * 1e-7f, 1e-9f * k); \
    b = fmaf(b, 0.9999f - k * 1e-7f, 2e-9f * k); \
  }
extern "C" __global__ void big_affine(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = threadIdx.x, b = blockIdx.x;
#pragma unroll
  CHAIN
  if (i < n) y[i] = 2.0f * x[i] + 1.0f + (a + b == -1.2345e-30f ? 1.0f : 0.0f);
}
extern "C" __global__ void small_affine(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = threadIdx.x, b = blockIdx.x;
#pragma unroll 1
  CHAIN
  if (i < n) y[i] = 2.0f * x[i] + 1.0f + (a + b == -1.2345e-30f ? 1.0f : 0.0f);
}
)";

// Both do the same work on the same data. The flush costs each the same for its data; only
// the straight-line body also has its code to fetch again, when the flush leaves it cold.
TEST(CodeCold, AFlushedLaunchFetchesItsCodeAgain) {
  KEV_REQUIRE_GPU();
  const std::string arch = gpu_test::device_arch();
  const KernelImage big = compile_kernel(kSource, "big_affine", arch);
  const KernelImage small = compile_kernel(kSource, "small_affine", arch);
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const auto time = [&](const KernelImage& image, const char* name, bool flush) {
    RunRequest r;
    r.spec = gpu_test::elementwise_spec();
    r.spec.problems[0].dims["n"] = 132 * 32;  // a warp per SM: the time is the chain's latency
    r.spec.launch.block = {gpu_test::expr("32")};
    r.spec.launch.grid = {gpu_test::expr("ceil_div(n, 32)")};
    r.candidate = image;
    r.reference = small;
    r.timing = gpu_test::timed_alone();
    r.timing.flush_l2 = flush;
    RunReport report = worker.run(r);
    std::printf("[code-cold] %-6s flush %-3s -> %-8s %8.2f us  %s\n", name, flush ? "on" : "off",
                to_string(report.outcome.disposition), report.outcome.time_us.value_or(0.0),
                report.outcome.detail.c_str());
    EXPECT_TRUE(report.outcome.passed() && report.outcome.time_us) << report.outcome.detail;
    return report.outcome.time_us.value_or(0.0);
  };
  const double straight = time(big, "64 KiB", true) - time(big, "64 KiB", false);
  const double looped = time(small, "loop", true) - time(small, "loop", false);
  std::printf("[code-cold] the flush costs the straight-line body %.2f us, the loop %.2f us\n",
              straight, looped);
  EXPECT_GT(straight, looped + 0.5);
}

}  // namespace
}  // namespace kev
