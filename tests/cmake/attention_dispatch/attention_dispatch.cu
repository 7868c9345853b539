// The launchers main.cu calls, under the template's own names (a dispatching build renames the
// template's to NAME_kev<K>, one per variant): each calls the variant kernelevo's dispatcher
// picks for the problem's batch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// The lockfile's buckets (attention_dispatch.cmake): the Hopper prefill kernel a block per tile
// below a batch of 3, persistent blocks from 3; decode's schedules split at a batch of 2 (from
// 2 in clusters of four).
namespace {
template <int K>
using Sm90 = kernelevo::variants::attention_fwd_sm90::variant<K>;
template <int K>
using Decode = kernelevo::variants::attention_decode_bf16::variant<K>;
constexpr int kSm90Arch = 900;
static_assert(
    Sm90<kernelevo::dispatch::attention_fwd_sm90_for_arch(kSm90Arch, 1)>::ATT90_CTAS_value == 0);
static_assert(
    Sm90<kernelevo::dispatch::attention_fwd_sm90_for_arch(kSm90Arch, 3)>::ATT90_CTAS_value == 132);
static_assert(
    Sm90<kernelevo::dispatch::attention_fwd_sm90_for_arch(kSm90Arch, 16)>::ATT90_CTAS_value == 132);
static_assert(Decode<kernelevo::dispatch::attention_decode_bf16_for_arch(
                  kSm90Arch, 1)>::ATT_DEC_WARPS_N_value == 8);
static_assert(Decode<kernelevo::dispatch::attention_decode_bf16_for_arch(
                  kSm90Arch, 32)>::ATT_DEC_WARPS_N_value == 4);
static_assert(Decode<kernelevo::dispatch::attention_decode_bf16_for_arch(
                  kSm90Arch, 3)>::ATT_DEC_CLUSTER_value == 4);
}  // namespace

#define PREFILL_ARGS(T)                                                                  \
  const T *q, const T *k, const T *v, T *o, float *lse, int batch, int seq_q, int seq_k, \
      int heads, int kv_heads, int head_dim, int causal, cudaStream_t stream
#define PREFILL_CALL q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal, stream
// The Hopper kernels' launchers take Stream-K's scratch after lse.
#define SM90_ARGS(T)                                                                      \
  const T *q, const T *k, const T *v, T *o, float *lse, float *o_part, unsigned *counter, \
      int batch, int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal, \
      cudaStream_t stream
#define SM90_CALL \
  q, k, v, o, lse, o_part, counter, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal, stream

#define DECLARE_PREFILL(name, T, k) extern "C" cudaError_t name##_launch_kev##k(PREFILL_ARGS(T));
#define DECLARE_SM90_KERNEL(name, T, k) extern "C" cudaError_t name##_launch_kev##k(SM90_ARGS(T));
#define DECLARE_BF16(k) DECLARE_PREFILL(attention_fwd_bf16, __nv_bfloat16, k)
#define DECLARE_SM90(k) DECLARE_SM90_KERNEL(attention_fwd_sm90, __nv_bfloat16, k)
#define DECLARE_SM90_F16(k) DECLARE_SM90_KERNEL(attention_fwd_sm90_f16, __half, k)
#define DECLARE_DECODE(k)                                                                       \
  extern "C" cudaError_t attention_decode_bf16_launch_kev##k(                                   \
      const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, float*, \
      float*, float*, unsigned*, int, int, int, int, int, int, int, cudaStream_t);
// clang-format off
KERNELEVO_VARIANTS_attention_fwd_bf16(DECLARE_BF16)
KERNELEVO_VARIANTS_attention_fwd_sm90(DECLARE_SM90)
KERNELEVO_VARIANTS_attention_fwd_sm90_f16(DECLARE_SM90_F16)
KERNELEVO_VARIANTS_attention_decode_bf16(DECLARE_DECODE)

#define CASE(name, k) \
  case k:             \
    return name##_launch_kev##k(PREFILL_CALL);
#define CASE_SM90_KERNEL(name, k) \
  case k:                         \
    return name##_launch_kev##k(SM90_CALL);
#define CASE_BF16(k) CASE(attention_fwd_bf16, k)
#define CASE_SM90(k) CASE_SM90_KERNEL(attention_fwd_sm90, k)
#define CASE_SM90_F16(k) CASE_SM90_KERNEL(attention_fwd_sm90_f16, k)

extern "C" cudaError_t attention_fwd_bf16_launch(PREFILL_ARGS(__nv_bfloat16)) {
  switch (kernelevo::dispatch::attention_fwd_bf16(batch)) {
    KERNELEVO_VARIANTS_attention_fwd_bf16(CASE_BF16)
  }
  return cudaErrorInvalidValue;
}
// clang-format on
extern "C" cudaError_t attention_fwd_sm90_launch(SM90_ARGS(__nv_bfloat16)) {
  switch (kernelevo::dispatch::attention_fwd_sm90(batch)) {
    KERNELEVO_VARIANTS_attention_fwd_sm90(CASE_SM90)
  }
  return cudaErrorInvalidValue;
}
extern "C" cudaError_t attention_fwd_sm90_f16_launch(SM90_ARGS(__half)) {
  switch (kernelevo::dispatch::attention_fwd_sm90_f16(batch)) {
    KERNELEVO_VARIANTS_attention_fwd_sm90_f16(CASE_SM90_F16)
  }
  return cudaErrorInvalidValue;
}

extern "C" cudaError_t attention_decode_bf16_launch(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                    const __nv_bfloat16* v, __nv_bfloat16* o,
                                                    float* lse, float* o_part, float* lse_part,
                                                    unsigned* counter, int batch, int seq_q,
                                                    int seq_k, int heads, int kv_heads,
                                                    int head_dim, int causal, cudaStream_t stream) {
#define CASE_DECODE(n)                                                                            \
  case n:                                                                                         \
    return attention_decode_bf16_launch_kev##n(q, k, v, o, lse, o_part, lse_part, counter, batch, \
                                               seq_q, seq_k, heads, kv_heads, head_dim, causal,   \
                                               stream);
  switch (kernelevo::dispatch::attention_decode_bf16(batch)) {
    KERNELEVO_VARIANTS_attention_decode_bf16(CASE_DECODE)
  }
  return cudaErrorInvalidValue;
}
