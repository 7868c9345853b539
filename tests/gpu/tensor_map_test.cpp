// Tensor map arguments on the GPU: the runner encodes each map for the buffer it passes
// (every rotating copy of batched timing included) and passes zeros where the driver cannot
// describe the tensor, which the kernel sees by the same rule and copies another way.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::expr;

// y = x over rows x cols floats; the candidate moves 8 x 32 tiles with one TMA copy each.
const char* kSource = R"(
struct alignas(64) Map { unsigned long long w[16]; };

extern "C" __global__ void plain_copy(const float* x, float* y, int rows, int cols,
                                      const __grid_constant__ Map) {
  const long long n = (long long)rows * cols;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) y[i] = x[i];
}

extern "C" __global__ void tma_copy(const float* x, float* y, int rows, int cols,
                                    const __grid_constant__ Map map) {
  __shared__ alignas(128) float tile[8][32];
  __shared__ alignas(8) unsigned long long bar;
  const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 8;
  const int r = threadIdx.x / 32, c = threadIdx.x % 32;
  const bool inside = r0 + r < rows && c0 + c < cols;
  if (cols % 4 != 0 || reinterpret_cast<unsigned long long>(x) % 16 != 0) {
    bool zeros = true;  // the runner promised a map of zeros here
    for (int i = 0; i < 16; ++i) zeros = zeros && map.w[i] == 0;
    if (inside) y[(long long)(r0 + r) * cols + c0 + c] = zeros ? x[(long long)(r0 + r) * cols + c0 + c] : -7.0f;
    return;
  }
  const unsigned b = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned t = static_cast<unsigned>(__cvta_generic_to_shared(&tile[0][0]));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(8 * 32 * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(t), "l"(reinterpret_cast<unsigned long long>(&map)),
                 "r"(c0), "r"(r0), "r"(b) : "memory");
  }
  asm volatile("{\n.reg .pred done;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra W;\n}" ::"r"(b) : "memory");
  if (inside) y[(long long)(r0 + r) * cols + c0 + c] = tile[r][c];
}
)";

KernelSpec copy_spec(std::int64_t rows, std::int64_t cols) {
  KernelSpec s;
  s.id = "tma_copy";
  s.kernel = "tma_copy";
  s.source = "tma_copy.cu";
  ArgSpec map;
  map.name = "map_x";
  map.tensor_map = TensorMapSpec{"x", {expr("cols"), expr("rows")}, {expr("32"), expr("8")}, 0, {}};
  s.args = {gpu_test::buffer_arg("x", ScalarType::f32, "rows * cols"),
            gpu_test::buffer_arg("y", ScalarType::f32, "rows * cols", true),
            gpu_test::int_arg("rows", "rows"), gpu_test::int_arg("cols", "cols"), map};
  s.launch.grid = {expr("ceil_div(cols, 32)"), expr("ceil_div(rows, 8)")};
  s.launch.block = {expr("256")};
  s.tolerance = {0.0, 0.0};
  s.metric_bytes = expr("8 * rows * cols");
  Problem p;
  p.dims = {{"rows", rows}, {"cols", cols}};
  s.problems = {p};
  Problem ragged;  // rows of 4004 bytes: no map, the kernel's other path
  ragged.dims = {{"rows", 37}, {"cols", 1001}};
  Problem edges;  // a map whose boxes hang over both edges
  edges.dims = {{"rows", 5}, {"cols", 36}};
  s.validate = {ragged, edges};
  return s;
}

class TensorMaps : public ::testing::Test {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    arch_ = gpu_test::device_arch();
    if (arch_ < std::string("sm_90")) GTEST_SKIP() << "TMA needs sm_90, this GPU is " << arch_;
    candidate_ = compile_kernel(kSource, "tma_copy", arch_);
    reference_ = compile_kernel(kSource, "plain_copy", arch_);
  }
  RunReport run(std::int64_t rows, std::int64_t cols) {
    RunRequest r;
    r.spec = copy_spec(rows, cols);
    r.candidate = candidate_;
    r.reference = reference_;
    r.timing.timeout_seconds = 10.0;
    cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
    return worker.run(r);
  }
  std::string arch_;
  KernelImage candidate_, reference_;
};

TEST_F(TensorMaps, EachLaunchGetsAMapOfItsOwnBufferAndZerosWhereNoneFits) {
  const RunReport report = run(2048, 4096);  // 32 MiB each way: timed launch by launch
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
  ASSERT_TRUE(report.problems.front().time_us.has_value());
  std::printf("[tensor_map] 2048x4096 copy through TMA tiles: %.2f us\n",
              *report.problems.front().time_us);
}

TEST_F(TensorMaps, BatchedCopiesEachGetTheirOwnMap) {
  // 64 KiB a launch: timed in batches over rotating copies, whose outputs are compared with
  // their own input set's: a map left pointing at another copy's buffer is caught.
  const RunReport report = run(64, 256);
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
  EXPECT_GT(report.problems.front().launches_per_sample, 1);
}

}  // namespace
}  // namespace kev
