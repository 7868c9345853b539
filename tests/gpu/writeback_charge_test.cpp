// A launch that ends with dirty lines in the L2 has them written back after its end event.
// Timed from a clean L2 with nothing after it, a kernel whose output fits in the L2 can look
// faster than the device copies, and a store hint that keeps its output in the L2
// (evict-last) won the recorded H200 tunes of the row-wise templates while trailing under
// back-to-back timing. With the write-back charged (TimingOptions::charge_writeback) neither
// should pay; the test prints both timings, charged and not.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;

constexpr const char* kSource = R"(
extern "C" __global__ void plain_store(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
// The same values, stored with an evict-last policy: they stay in the L2, dirty.
extern "C" __global__ void evict_last_store(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  if (i < n)
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(y + i),
                 "f"(2.0f * x[i] + 1.0f), "l"(policy) : "memory");
}
)";

class WriteBackCharge : public ::testing::Test {
 protected:
  void SetUp() override {
    KEV_REQUIRE_GPU();
    const std::string arch = gpu_test::device_arch();
    plain_ = compile_kernel(kSource, "plain_store", arch);
    evict_last_ = compile_kernel(kSource, "evict_last_store", arch);
  }
  // 8 Mi floats in and out (32 MiB each, together about the L2 of an H100 or H200), each
  // launch timed alone (no batching); the ceiling check off, so the uncharged time shows.
  RunReport run(cuda::WorkerRunner& worker, const KernelImage& kernel, bool charge) {
    RunRequest r;
    r.spec = gpu_test::elementwise_spec();
    r.spec.problems[0].dims["n"] = 8 << 20;
    r.candidate = kernel;
    r.reference = plain_;
    r.timing = gpu_test::timed_alone();
    r.timing.ceiling_margin = 100.0;
    r.timing.charge_writeback = charge;
    RunReport report = worker.run(r);
    const double fraction =
        report.problems.empty() ? 0.0 : report.problems[0].copy_fraction.value_or(0.0);
    std::printf("[write-back] %-16s charged=%d -> %-8s %7.2f us  %.2f of the measured copy  %s\n",
                kernel.function.c_str(), charge, to_string(report.outcome.disposition),
                report.outcome.time_us.value_or(0.0), fraction, report.outcome.detail.c_str());
    return report;
  }
  KernelImage plain_;
  KernelImage evict_last_;
};

TEST_F(WriteBackCharge, AnOutputLeftInTheL2IsChargedItsWriteBack) {
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 30.0);
  const RunReport plain_off = run(worker, plain_, false);
  const RunReport plain_on = run(worker, plain_, true);
  const RunReport last_off = run(worker, evict_last_, false);
  const RunReport last_on = run(worker, evict_last_, true);
  for (const RunReport* r : {&plain_off, &plain_on, &last_off, &last_on})
    ASSERT_TRUE(r->outcome.passed() && r->outcome.time_us) << r->outcome.detail;
  ASSERT_FALSE(plain_on.problems.empty());
  // Charged, an honest copy-like kernel moves its bytes no faster than the device copies.
  EXPECT_LE(plain_on.problems[0].copy_fraction.value_or(0.0), 1.05);
  // Charging only adds what the launch left to write (within the timers' noise).
  EXPECT_GT(*plain_on.outcome.time_us, 0.97 * *plain_off.outcome.time_us);
  // Keeping the output in the L2 does not pay: the flush returns its lines to the normal
  // priority (evict_last_flush_test.cpp), and charging its write-back only adds to it. (Against
  // the plain kernel's uncharged time: a charge is the difference of two flushes of over
  // 100 us, and the plain kernel's ranged 28.9-30.5 us over five H100 runs.)
  EXPECT_GT(*last_off.outcome.time_us, 0.97 * *plain_off.outcome.time_us);
  EXPECT_GT(*last_on.outcome.time_us, 0.97 * *plain_off.outcome.time_us);
}

}  // namespace
}  // namespace kev
