// Kernels of a few microseconds are timed in batches over rotating argument copies
// (DESIGN.md section 3), and a kernel that skips work inside a batch is still caught.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::elementwise_spec;

constexpr int kSmallN = 1 << 16;  // 512 KiB moved per launch: a few microseconds

std::string affine_source(const std::string& name, const std::string& guard) {
  return "__device__ unsigned long long kev_tickets;\n"
         "extern \"C\" __global__ void " +
         name +
         "(const float* x, float* y, int n) {\n"
         "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i >= n) return;\n" +
         guard + "  y[i] = 2.0f * x[i] + 1.0f;\n}\n";
}

class BatchedTiming : public ::testing::Test {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    arch_ = gpu_test::device_arch();
    reference_ = compile_kernel(affine_source("reference", ""), "reference", arch_);
    auto runner = cuda::DriverRunner::open(0);
    ASSERT_TRUE(runner.ok());
    auto info = (*runner)->device_info();
    ASSERT_TRUE(info.ok());
    l2_bytes_ = info->l2_bytes;
  }
  RunRequest request_for(const KernelImage& candidate) {
    RunRequest r;
    r.spec = elementwise_spec();
    r.spec.problems.front().dims["n"] = kSmallN;
    r.candidate = candidate;
    r.reference = reference_;
    r.timing.timeout_seconds = 10.0;
    return r;
  }
  std::string arch_;
  KernelImage reference_;
  std::int64_t l2_bytes_ = 0;
};

TEST_F(BatchedTiming, AFewMicrosecondKernelIsTimedInBatchesLargerThanFourL2) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  const RunReport batched = worker.run(request_for(reference_));
  ASSERT_EQ(batched.outcome.disposition, Disposition::passed) << batched.outcome.detail;
  const ProblemResult& p = batched.problems.front();
  ASSERT_TRUE(p.time_us.has_value());
  EXPECT_GT(p.launches_per_sample, 1);
  const std::int64_t bytes_per_copy = 2LL * kSmallN * 4;
  EXPECT_GE(static_cast<std::int64_t>(p.launches_per_sample) * bytes_per_copy, 4 * l2_bytes_);
  EXPECT_GT(*p.time_us, 0.0);
  EXPECT_LT(*p.time_us, 20.0);

  RunRequest alone_request = request_for(reference_);
  alone_request.timing.batch_below_us = 0.0;  // every launch timed by itself
  const RunReport alone = worker.run(alone_request);
  ASSERT_EQ(alone.outcome.disposition, Disposition::passed) << alone.outcome.detail;
  EXPECT_EQ(alone.problems.front().launches_per_sample, 1);
  std::printf("[batched] n=%d: %.3f us per launch in batches of %d, %.3f us timed alone\n", kSmallN,
              *p.time_us, p.launches_per_sample, *alone.problems.front().time_us);
}

TEST_F(BatchedTiming, SkippingWorkInsideABatchIsCaught) {
  // Correct for its first 12 launches (verification rounds, warm-up and the first samples
  // that decide on batching), then it returns at once.
  const std::string guard = "  if (atomicAdd(&kev_tickets, 1ull) >= 12ull * n) return;\n";
  const KernelImage lazy = compile_kernel(affine_source("lazy", guard), "lazy", arch_);
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  const RunReport report = worker.run(request_for(lazy));
  EXPECT_EQ(report.outcome.disposition, Disposition::incorrect) << report.outcome.detail;
  EXPECT_NE(report.outcome.detail.find("batched timing"), std::string::npos)
      << report.outcome.detail;
  std::printf("[batched] lazy kernel -> %s: %s\n", to_string(report.outcome.disposition),
              report.outcome.detail.c_str());
}

}  // namespace
}  // namespace kev
