// The launchers the program calls: each picks the variant of the problem's M through the
// dispatcher kernelevo_optimize generates, and calls that variant's launcher (the template's
// gemm_sm90_*_launch, renamed per variant in a dispatching build).
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#define DECLARE_BF16(k)                                \
  extern "C" cudaError_t gemm_sm90_bf16_launch_kev##k( \
      const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, int, int, int, cudaStream_t);
KERNELEVO_VARIANTS_gemm_sm90_bf16(DECLARE_BF16)
#define DECLARE_FP8(k)                                                                           \
  extern "C" cudaError_t gemm_sm90_fp8_launch_kev##k(const __nv_fp8_e4m3*, const __nv_fp8_e4m3*, \
                                                     __nv_bfloat16*, const float*, const float*, \
                                                     int, int, int, cudaStream_t);
    KERNELEVO_VARIANTS_gemm_sm90_fp8(DECLARE_FP8)

        extern "C" cudaError_t gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                         __nv_bfloat16* c, int m, int n, int k) {
  switch (kernelevo::dispatch::gemm_sm90_bf16(m)) {
#define CALL_BF16(v) \
  case v:            \
    return gemm_sm90_bf16_launch_kev##v(a, b, c, m, n, k, nullptr);
    KERNELEVO_VARIANTS_gemm_sm90_bf16(CALL_BF16)
  }
  return cudaErrorInvalidValue;
}

extern "C" cudaError_t gemm_fp8(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c,
                                const float* sa, const float* sb, int m, int n, int k) {
  switch (kernelevo::dispatch::gemm_sm90_fp8(m)) {
#define CALL_FP8(v) \
  case v:           \
    return gemm_sm90_fp8_launch_kev##v(a, b, c, sa, sb, m, n, k, nullptr);
    KERNELEVO_VARIANTS_gemm_sm90_fp8(CALL_FP8)
  }
  return cudaErrorInvalidValue;
}

extern "C" int gemm_bf16_variant(int m) { return kernelevo::dispatch::gemm_sm90_bf16(m); }
extern "C" int gemm_fp8_variant(int m) { return kernelevo::dispatch::gemm_sm90_fp8(m); }
