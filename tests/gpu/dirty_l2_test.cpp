// TimingOptions::dirty_l2 starts every timed launch from an L2 full of the flush's dirty
// lines, which the launch writes back as it evicts them (triton's do_bench starts there, and
// so does a kernel after another one's writes). A copy larger than the L2 then pays for
// those write-backs: timed dirty it is slower than timed clean, and still verified. On an
// H100 the dirty timer of bench/templates added 6-7% to softmax at 32768x1024
// (bench/results/2026-12-06-writeback-charge).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;

constexpr const char* kSource = R"(
extern "C" __global__ void scale_copy(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
)";

TEST(DirtyL2, ALaunchFromADirtyL2PaysForTheWriteBacksItFinds) {
  KEV_REQUIRE_GPU();
  const KernelImage copy = compile_kernel(kSource, "scale_copy", gpu_test::device_arch());
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const auto run = [&](bool dirty) {
    RunRequest r;
    r.spec = gpu_test::elementwise_spec();
    r.spec.problems[0].dims["n"] = 32 << 20;  // 128 MiB in, 128 MiB out: past any L2
    r.candidate = copy;
    r.reference = copy;
    r.timing = gpu_test::timed_alone();
    r.timing.dirty_l2 = dirty;
    RunReport report = worker.run(r);
    std::printf("[dirty-l2] %-13s -> %-8s %8.2f us  %s\n", timing_method(r.timing),
                to_string(report.outcome.disposition), report.outcome.time_us.value_or(0.0),
                report.outcome.detail.c_str());
    return report;
  };
  const RunReport clean = run(false);
  const RunReport dirty = run(true);
  for (const RunReport* r : {&clean, &dirty})
    ASSERT_TRUE(r->outcome.passed() && r->outcome.time_us) << r->outcome.detail;
  EXPECT_GT(*dirty.outcome.time_us, 1.01 * *clean.outcome.time_us);
}

}  // namespace
}  // namespace kev
