// Rotary position embedding (RoPE) of q and k in place, bf16, fp32 math, rotate-half:
// the NeoX / LLaMA convention, the queries and the keys in one launch (as vLLM's and
// FlashInfer's rotary kernels do):
//   for each token t, head h of q[tokens, heads, head_dim] and of k[tokens, kv_heads, head_dim],
//   with p = positions[t], half = head_dim / 2 and i < half,
//     x1 = x[t, h, i], x2 = x[t, h, i + half], c = cos_cache[p, i], s = sin_cache[p, i]
//     x[t, h, i]        = x1 * c - x2 * s
//     x[t, h, i + half] = x2 * c + x1 * s
// cos_cache and sin_cache are fp32 tables of max_pos rows of half values (FlashInfer's
// apply_rope_with_cos_sin_cache takes an fp32 cache; Hugging Face's rotary embedding computes
// cos and sin in fp32), positions int32 (tokens of several sequences need not be 0, 1, 2...).
//
// A work item is one group of ROPE_BF16_VEC columns of the first half (with the same columns
// of the second half) in ROPE_BF16_HEADS consecutive heads of one token, q's heads first then
// k's: a thread reads the token's position and its VEC cos and sin values once and rotates
// them into every one of its heads, issuing every head's loads before the first use. The
// items run fastest along the columns, then the head groups, then the tokens, so a warp reads
// whole 128-byte segments and the block's threads share the token's cos and sin rows in L1.
// Vector loads (ROPE_BF16_VEC bf16 values, 16 bytes at 8) are used when half and the pointers
// allow them; otherwise the same items take scalar loads, so every configuration is correct
// for every shape and the launch never depends on the path.
//
// Launch as the spec's `launch` says: ceil_div(tokens * HEAD_GROUPS * COL_GROUPS, BLOCK)
// blocks of ROPE_BF16_BLOCK threads.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
// The default block: the H200 tune's winner at both problems
// (bench/results/2026-12-06-templates-dirty-h200).
#ifndef ROPE_BF16_BLOCK
#define ROPE_BF16_BLOCK 64
#endif
#ifndef ROPE_BF16_VEC
#define ROPE_BF16_VEC 8
#endif
#ifndef ROPE_BF16_HEADS
#define ROPE_BF16_HEADS 2
#endif
#ifndef ROPE_BF16_STREAMING
#define ROPE_BF16_STREAMING 0
#endif

// clang-format off
/* @kernelevo
id: rope_bf16
kernel: rope_bf16
params:
  ROPE_BF16_BLOCK: [64, 128, 256, 512, 1024]
  ROPE_BF16_VEC: [2, 4, 8]
  ROPE_BF16_HEADS: [1, 2, 4, 8]
  ROPE_BF16_STREAMING: [0, 1]
let:
  COL_GROUPS: "ceil_div(head_dim / 2, ROPE_BF16_VEC)"
  HEAD_GROUPS: "ceil_div(heads + kv_heads, ROPE_BF16_HEADS)"
problems:
  - {tokens: 4096, heads: 32, kv_heads: 8, head_dim: 128}
  - {tokens: 16384, heads: 32, kv_heads: 8, head_dim: 128}
validate:
  - {tokens: 3, heads: 5, kv_heads: 1, head_dim: 128}
  - {tokens: 7, heads: 3, kv_heads: 2, head_dim: 72}
  - {tokens: 5, heads: 4, kv_heads: 4, head_dim: 62}
  - {tokens: 33, heads: 6, kv_heads: 3, head_dim: 64}
args:
  - {name: q, type: "__nv_bfloat16*", count: "tokens*heads*head_dim", init: normal, inout: true}
  - {name: k, type: "__nv_bfloat16*", count: "tokens*kv_heads*head_dim", init: normal, inout: true}
  - {name: cos_cache, type: "const float*", count: "4096*(head_dim/2)", init: uniform}
  - {name: sin_cache, type: "const float*", count: "4096*(head_dim/2)", init: uniform}
  - {name: positions, type: "const int32_t*", count: "tokens", init: {randint: [0, 4096]}}
  - {name: tokens, type: int, value: tokens}
  - {name: heads, type: int, value: heads}
  - {name: kv_heads, type: int, value: kv_heads}
  - {name: head_dim, type: int, value: head_dim}
launch:
  grid: ["ceil_div(tokens * HEAD_GROUPS * COL_GROUPS, ROPE_BF16_BLOCK)"]
  block: ["ROPE_BF16_BLOCK"]
  shared_bytes: "0"
reference: rope_bf16_naive
timing: alone
tolerance: {rtol: 8e-3, atol: 8e-3}
metrics: {bytes: "2*tokens*(heads+kv_heads)*head_dim*2 + tokens*(head_dim/2)*4*2 + tokens*4", flops: "3*tokens*(heads+kv_heads)*head_dim"}
*/
// clang-format on

namespace rope_bf16_detail {

constexpr int kVec = ROPE_BF16_VEC;
constexpr int kHeads = ROPE_BF16_HEADS;
static_assert(ROPE_BF16_BLOCK % 32 == 0 && ROPE_BF16_BLOCK <= 1024,
              "ROPE_BF16_BLOCK must be a multiple of 32, at most 1024");
static_assert(kVec == 1 || kVec == 2 || kVec == 4 || kVec == 8, "ROPE_BF16_VEC: 1, 2, 4 or 8");
static_assert(kHeads >= 1, "ROPE_BF16_HEADS must be positive");

// q and k are read and then written by the same thread, so they are loaded through the
// coherent path (never ld.global.nc): plainly, or evict-first (ld.global.cs, st.global.cs)
// with ROPE_BF16_STREAMING 1. cos, sin and positions are read-only.
template <typename T>
__device__ __forceinline__ T load_value(const T* p) {
#if ROPE_BF16_STREAMING
  return __ldcs(p);
#else
  return *p;
#endif
}
template <typename T>
__device__ __forceinline__ void store_value(T* p, const T& v) {
#if ROPE_BF16_STREAMING
  __stcs(p, v);
#else
  *p = v;
#endif
}

// V bf16 values moved by one load or store.
template <int V>
struct Pack;
template <>
struct Pack<1> {
  using type = unsigned short;
};
template <>
struct Pack<2> {
  using type = unsigned int;
};
template <>
struct Pack<4> {
  using type = uint2;
};
template <>
struct Pack<8> {
  using type = uint4;
};

// The k-th value of a pack as fp32 (a bf16 is the upper half of a float).
template <int V>
__device__ __forceinline__ float get(const typename Pack<V>::type& p, int k) {
  if constexpr (V == 1) {
    return __uint_as_float(static_cast<unsigned>(p) << 16);
  } else {
    const unsigned w = reinterpret_cast<const unsigned*>(&p)[k / 2];
    return __uint_as_float(k % 2 == 0 ? w << 16 : w & 0xffff0000u);
  }
}

// V fp32 values rounded to bf16 (to nearest even) as one pack.
template <int V>
__device__ __forceinline__ typename Pack<V>::type pack(const float (&f)[V]) {
  typename Pack<V>::type p;
  if constexpr (V == 1) {
    p = __bfloat16_as_ushort(__float2bfloat16_rn(f[0]));
  } else {
#pragma unroll
    for (int k = 0; k < V / 2; ++k) {
      const __nv_bfloat162 h = __floats2bfloat162_rn(f[2 * k], f[2 * k + 1]);
      reinterpret_cast<unsigned*>(&p)[k] = *reinterpret_cast<const unsigned*>(&h);
    }
  }
  return p;
}

// V consecutive fp32 values of a read-only cache, in loads of at most 16 bytes.
template <int V>
__device__ __forceinline__ void load_floats(const float* p, float (&f)[V]) {
  if constexpr (V == 1) {
    f[0] = __ldg(p);
  } else if constexpr (V == 2) {
    const float2 a = __ldg(reinterpret_cast<const float2*>(p));
    f[0] = a.x;
    f[1] = a.y;
  } else {
#pragma unroll
    for (int j = 0; j < V / 4; ++j) {
      const float4 a = __ldg(reinterpret_cast<const float4*>(p) + j);
      f[4 * j] = a.x;
      f[4 * j + 1] = a.y;
      f[4 * j + 2] = a.z;
      f[4 * j + 3] = a.w;
    }
  }
}

// One work item: columns [col0, col0 + kVec) of the first half (and of the second) in heads
// [head0, head0 + kHeads) of token `token`, in loads of V values (V == kVec: one load per
// half and head; V == 1: kVec scalar loads, each column checked against half).
template <int V>
__device__ __forceinline__ void rotate_item(__nv_bfloat16* __restrict__ q,
                                            __nv_bfloat16* __restrict__ k,
                                            const float* __restrict__ cos_cache,
                                            const float* __restrict__ sin_cache,
                                            const int* __restrict__ positions, long long token,
                                            int head0, int col0, int heads, int kv_heads,
                                            int head_dim) {
  using P = typename Pack<V>::type;
  constexpr int kLoads = kVec / V;  // loads per half and head
  const int half = head_dim / 2;
  const long long pos = __ldg(positions + token);
  const float* cs = cos_cache + pos * half + col0;
  const float* sn = sin_cache + pos * half + col0;
  float c[kLoads][V], s[kLoads][V];
#pragma unroll
  for (int l = 0; l < kLoads; ++l) {
    if (V == kVec || col0 + l * V < half) {
      load_floats<V>(cs + l * V, c[l]);
      load_floats<V>(sn + l * V, s[l]);
    }
  }
  // Every head's loads first, then the arithmetic and the stores.
  P x1[kHeads][kLoads], x2[kHeads][kLoads];
  P* base[kHeads];
#pragma unroll
  for (int j = 0; j < kHeads; ++j) {
    const int h = head0 + j;
    base[j] = nullptr;
    if (h < heads + kv_heads) {
      __nv_bfloat16* row = h < heads ? q + (token * heads + h) * head_dim
                                     : k + (token * kv_heads + (h - heads)) * head_dim;
      base[j] = reinterpret_cast<P*>(row + col0);
#pragma unroll
      for (int l = 0; l < kLoads; ++l) {
        if (V == kVec || col0 + l * V < half) {
          x1[j][l] = load_value(base[j] + l);
          x2[j][l] = load_value(reinterpret_cast<P*>(row + col0 + half) + l);
        }
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kHeads; ++j) {
    if (base[j] == nullptr) continue;
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      if (V == kVec || col0 + l * V < half) {
        float o1[V], o2[V];
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const float a = get<V>(x1[j][l], e), b = get<V>(x2[j][l], e);
          o1[e] = a * c[l][e] - b * s[l][e];
          o2[e] = b * c[l][e] + a * s[l][e];
        }
        // The second half's pack lies half values past the first's.
        P* second = reinterpret_cast<P*>(reinterpret_cast<__nv_bfloat16*>(base[j]) + half);
        store_value(base[j] + l, pack<V>(o1));
        store_value(second + l, pack<V>(o2));
      }
    }
  }
}

}  // namespace rope_bf16_detail

extern "C" __global__ void __launch_bounds__(ROPE_BF16_BLOCK)
    rope_bf16(__nv_bfloat16* __restrict__ q, __nv_bfloat16* __restrict__ k,
              const float* __restrict__ cos_cache, const float* __restrict__ sin_cache,
              const int* __restrict__ positions, int tokens, int heads, int kv_heads,
              int head_dim) {
  using namespace rope_bf16_detail;
  const int half = head_dim / 2;
  if (half <= 0 || tokens <= 0 || heads + kv_heads <= 0) return;
  const unsigned col_groups = static_cast<unsigned>((half + kVec - 1) / kVec);
  const unsigned head_groups = static_cast<unsigned>((heads + kv_heads + kHeads - 1) / kHeads);
  const unsigned per_token = col_groups * head_groups;
  const unsigned long long item =
      static_cast<unsigned long long>(blockIdx.x) * ROPE_BF16_BLOCK + threadIdx.x;
  // One 64-bit division at most (none while the item index fits 32 bits).
  const unsigned long long token =
      item >> 32 == 0 ? static_cast<unsigned>(item) / per_token : item / per_token;
  if (token >= static_cast<unsigned long long>(tokens)) return;
  const unsigned within = static_cast<unsigned>(item - token * per_token);
  const int col0 = static_cast<int>(within % col_groups) * kVec;
  const int head0 = static_cast<int>(within / col_groups) * kHeads;
  const long long t = static_cast<long long>(token);
  if constexpr (kVec > 1) {
    // The same for the whole grid: no block diverges on it.
    const bool vector_ok =
        half % kVec == 0 &&
        ((reinterpret_cast<unsigned long long>(q) | reinterpret_cast<unsigned long long>(k)) %
         (kVec * sizeof(__nv_bfloat16))) == 0 &&
        ((reinterpret_cast<unsigned long long>(cos_cache) |
          reinterpret_cast<unsigned long long>(sin_cache)) %
         (kVec >= 4 ? 16 : kVec * sizeof(float))) == 0;
    if (vector_ok) {
      rotate_item<kVec>(q, k, cos_cache, sin_cache, positions, t, head0, col0, heads, kv_heads,
                        head_dim);
      return;
    }
  }
  rotate_item<1>(q, k, cos_cache, sin_cache, positions, t, head0, col0, heads, kv_heads, head_dim);
}

// The reference: one thread per (token, head), q's heads then k's, any launch geometry.
extern "C" __global__ void rope_bf16_naive(__nv_bfloat16* __restrict__ q,
                                           __nv_bfloat16* __restrict__ k,
                                           const float* __restrict__ cos_cache,
                                           const float* __restrict__ sin_cache,
                                           const int* __restrict__ positions, int tokens, int heads,
                                           int kv_heads, int head_dim) {
  const int half = head_dim / 2;
  const long long pairs = static_cast<long long>(tokens) * (heads + kv_heads);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long w = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; w < pairs;
       w += stride) {
    const long long t = w / (heads + kv_heads);
    const int h = static_cast<int>(w % (heads + kv_heads));
    __nv_bfloat16* x =
        h < heads ? q + (t * heads + h) * head_dim : k + (t * kv_heads + (h - heads)) * head_dim;
    const long long p = positions[t];
    for (int i = 0; i < half; ++i) {
      const float x1 = __bfloat162float(x[i]);
      const float x2 = __bfloat162float(x[i + half]);
      const float c = cos_cache[p * half + i];
      const float s = sin_cache[p * half + i];
      x[i] = __float2bfloat16_rn(x1 * c - x2 * s);
      x[i + half] = __float2bfloat16_rn(x2 * c + x1 * s);
    }
  }
}
