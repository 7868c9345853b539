// What the driver says a compiled kernel takes (registers, shared and local memory) reaches
// the outcome, through a real worker: the secondary objectives of a spec's `objectives`.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::elementwise_spec;

// The affine kernel twice: plainly, and with a static shared array and a local array
// indexed by the data (which the compiler must keep in local memory).
constexpr const char* kLean = R"(
extern "C" __global__ void affine(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
)";
constexpr const char* kHeavy = R"(
extern "C" __global__ void affine(const float* x, float* y, int n) {
  __shared__ float tile[1024];
  float scratch[64];
  for (int k = 0; k < 64; ++k) scratch[k] = static_cast<float>(k);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    const float v = tile[threadIdx.x];
    const int k = static_cast<int>(fabsf(v) * 1000.0f) & 63;
    scratch[k] += v;
    // 0 * a finite value is 0, but without fast math the compiler must still read it.
    y[i] = 2.0f * v + 1.0f + 0.0f * scratch[(k * 7 + 3) & 63];
  }
}
)";

TEST(KernelResources, TheWorkerReportsRegistersSharedAndLocalMemory) {
  KEV_REQUIRE_GPU();
  const std::string arch = gpu_test::device_arch();
  const KernelImage lean = compile_kernel(kLean, "affine", arch);
  const KernelImage heavy = compile_kernel(kHeavy, "affine", arch);
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  RunRequest request;
  request.spec = elementwise_spec();
  request.spec.launch.shared_bytes = gpu_test::expr("512");  // dynamic, besides the static
  request.reference = lean;
  request.timing.timeout_seconds = 10.0;

  request.candidate = lean;
  const RunReport a = worker.run(request);
  ASSERT_EQ(a.outcome.disposition, Disposition::passed) << a.outcome.detail;
  ASSERT_TRUE(a.outcome.resources);
  EXPECT_GT(a.outcome.resources->registers, 0);
  EXPECT_EQ(a.outcome.resources->shared_bytes, 512);
  EXPECT_EQ(a.outcome.resources->local_bytes, 0);

  request.candidate = heavy;  // the same answers, with more of the GPU taken
  const RunReport b = worker.run(request);
  ASSERT_EQ(b.outcome.disposition, Disposition::passed) << b.outcome.detail;
  ASSERT_TRUE(b.outcome.resources);
  EXPECT_EQ(b.outcome.resources->shared_bytes, 1024 * 4 + 512);
  EXPECT_GE(b.outcome.resources->local_bytes, 64 * 4);
  std::printf("[resources] lean: %d registers, %d B shared, %d B local; heavy: %d, %d, %d\n",
              a.outcome.resources->registers, a.outcome.resources->shared_bytes,
              a.outcome.resources->local_bytes, b.outcome.resources->registers,
              b.outcome.resources->shared_bytes, b.outcome.resources->local_bytes);
}

}  // namespace
}  // namespace kev
