// launch.cluster on the GPU: the runner launches the spec's grid (counted in CTAs) as
// thread-block clusters of the size the expression gives for the configuration and shape,
// which the kernel reads back; a configuration without a cluster launches plainly.
#include <gtest/gtest.h>

#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::expr;

// y[block] = 100 * (CTAs in its cluster) + its rank there; the reference computes what a
// cluster of `c` CTAs along x gives, without being launched in clusters.
const char* kSource = R"(
extern "C" __global__ void cluster_ids(int* y, int n, int c) {
  unsigned size, rank;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0 && blockIdx.x < n) y[blockIdx.x] = 100 * (int)size + (int)rank;
}

extern "C" __global__ void cluster_ids_naive(int* y, int n, int c) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < n; b += gridDim.x * blockDim.x)
    y[b] = 100 * c + b % c;
}
)";

KernelSpec cluster_spec() {
  KernelSpec s;
  s.id = "cluster_ids";
  s.kernel = "cluster_ids";
  s.source = "cluster_ids.cu";
  s.args = {gpu_test::buffer_arg("y", ScalarType::i32, "n * C", true),
            gpu_test::int_arg("n", "n * C"), gpu_test::int_arg("c", "C")};
  s.launch.grid = {expr("n * C")};
  s.launch.block = {expr("64")};
  s.launch.cluster = expr("C");
  s.tolerance = {0.0, 0.0};
  Problem p;
  p.dims = {{"n", 132}};
  s.problems = {p};
  Problem small;
  small.dims = {{"n", 3}};
  s.validate = {small};
  return s;
}

class ClusterLaunch : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    arch_ = gpu_test::device_arch();
    if (arch_ < std::string("sm_90")) GTEST_SKIP() << "clusters need sm_90, this GPU is " << arch_;
  }
  std::string arch_;
};

TEST_P(ClusterLaunch, TheKernelSeesTheClusterTheSpecAsksFor) {
  RunRequest r;
  r.spec = cluster_spec();
  r.params = {{"C", Value(GetParam())}};
  r.reference_params = r.params;  // the reference's geometry and `c`; it ignores clusters
  r.candidate = compile_kernel(kSource, "cluster_ids", arch_);
  r.reference = compile_kernel(kSource, "cluster_ids_naive", arch_);
  r.timing.timeout_seconds = 10.0;
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  const RunReport report = worker.run(r);
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
}

INSTANTIATE_TEST_SUITE_P(Sizes, ClusterLaunch, ::testing::Values(1, 2, 4, 8));

}  // namespace
}  // namespace kev
