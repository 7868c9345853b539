// fp8_e4m3 arguments on the GPU: the runner fills them on the device from the spec's init,
// and the hardware's conversion reads every filled code as a finite value inside the init's
// range; and the runner's device E4M3 conversions (the helper kernels' copy of
// core/scalar_codec's, which the host tests check against every code) agree exactly with the
// hardware's: every code decoded, and a million floats over [-600, 600] and the subnormal
// range encoded (round to nearest even, saturating at 448).
#include <gtest/gtest.h>

#include "cuda/helper_kernels.h"
#include "cuda/worker_client.h"
#include "gpu_test_support.h"

namespace kev {
namespace {

using gpu_test::compile_kernel;
using gpu_test::expr;

// y = 2 * x. The candidate widens with the hardware's conversion (sm_89 and later) and writes
// NaN for a value outside [-1, 1]; the reference decodes the bits in software.
const char* kSource = R"(
extern "C" __global__ void widen_hw(const unsigned char* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned short pair = x[i];
  unsigned halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(pair));
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"((unsigned short)(halves & 0xFFFFu)));
  y[i] = (v >= -1.0f && v <= 1.0f) ? 2.0f * v : __int_as_float(0x7FC00000);
}

extern "C" __global__ void widen_sw(const unsigned char* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned b = x[i];
  const int field = (b >> 3) & 0xF, mantissa = b & 0x7;
  float v = field == 0 ? ldexpf((float)mantissa, -9) : ldexpf(1.0f + mantissa / 8.0f, field - 7);
  if (field == 0xF && mantissa == 0x7) v = __int_as_float(0x7FC00000);
  y[i] = 2.0f * ((b & 0x80u) ? -v : v);
}
)";

KernelSpec widen_spec() {
  KernelSpec s;
  s.id = "widen";
  s.kernel = "widen_hw";
  s.source = "widen.cu";
  ArgSpec x = gpu_test::buffer_arg("x", ScalarType::fp8_e4m3, "n");
  x.init = InitKind::uniform;
  x.init_low = -1.0;
  x.init_value = 1.0;
  s.args = {x, gpu_test::buffer_arg("y", ScalarType::f32, "n", true), gpu_test::int_arg("n", "n")};
  s.launch.grid = {expr("ceil_div(n, 256)")};
  s.launch.block = {expr("256")};
  s.tolerance = {0.0, 0.0};
  s.metric_bytes = expr("5 * n");
  Problem p;
  p.dims["n"] = 1 << 20;
  s.problems = {p};
  return s;
}

TEST(Fp8Args, DeviceFilledCodesAreInRangeAndDecodeAsTheHardwareDoes) {
  KEV_REQUIRE_GPU();
  const std::string arch = gpu_test::device_arch();
  if (arch < std::string("sm_89"))
    GTEST_SKIP() << "fp8 conversions need sm_89, this GPU is " << arch;
  RunRequest r;
  r.spec = widen_spec();
  r.candidate = compile_kernel(kSource, "widen_hw", arch);
  r.reference = compile_kernel(kSource, "widen_sw", arch);
  r.timing.timeout_seconds = 10.0;
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  const RunReport report = worker.run(r);
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
}

// y[i]: code i % 256 decoded (the NaN codes as 0); z[i]: the float probe(i) encoded. The
// candidate uses the runner's helper functions, the reference the hardware's cvt.
const char* kCodecKernels = R"(
__device__ float probe(int i, int n) {
  const float f = (float)(i - n / 2) * (600.0f / (float)(n / 2));
  return (i & 1) ? ldexpf(f, -12) : f;  // odd i: the subnormal range and below
}
__device__ bool nan_code(unsigned c) { return (c & 0x7Fu) == 0x7Fu; }

extern "C" __global__ void codec_runner(float* y, unsigned char* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned c = (unsigned)i & 0xFFu;
  y[i] = nan_code(c) ? 0.0f : kev_e4m32f((unsigned char)c);
  z[i] = kev_f2e4m3(probe(i, n));
}

extern "C" __global__ void codec_hw(float* y, unsigned char* z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned c = (unsigned)i & 0xFFu;
  unsigned halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"((unsigned short)c));
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"((unsigned short)(halves & 0xFFFFu)));
  y[i] = nan_code(c) ? 0.0f : v;
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(probe(i, n)));
  z[i] = (unsigned char)(pair & 0xFFu);
}
)";

KernelSpec codec_spec() {
  KernelSpec s;
  s.id = "codec";
  s.kernel = "codec_runner";
  s.source = "codec.cu";
  s.args = {gpu_test::buffer_arg("y", ScalarType::f32, "n", true),
            gpu_test::buffer_arg("z", ScalarType::u8, "n", true), gpu_test::int_arg("n", "n")};
  s.launch.grid = {expr("ceil_div(n, 256)")};
  s.launch.block = {expr("256")};
  s.tolerance = {0.0, 0.0};
  s.metric_bytes = expr("5 * n");
  Problem p;
  p.dims["n"] = 1 << 20;
  s.problems = {p};
  return s;
}

TEST(Fp8Args, TheRunnersDeviceConversionsAgreeWithTheHardware) {
  KEV_REQUIRE_GPU();
  const std::string arch = gpu_test::device_arch();
  if (arch < std::string("sm_89"))
    GTEST_SKIP() << "fp8 conversions need sm_89, this GPU is " << arch;
  const std::string source = std::string(cuda::helper_kernels_source()) + kCodecKernels;
  RunRequest r;
  r.spec = codec_spec();
  r.candidate = compile_kernel(source, "codec_runner", arch);
  r.reference = compile_kernel(source, "codec_hw", arch);
  r.timing.timeout_seconds = 10.0;
  cuda::WorkerRunner worker({KERNELEVO_BINARY, "worker", "--device", "0"}, 60.0);
  const RunReport report = worker.run(r);
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
}

}  // namespace
}  // namespace kev
