// Layer normalisation over rows, bf16 in and out, fp32 math, with a learned scale and shift:
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * gamma[c] + beta[c]
// with the biased variance of row r (as torch.nn.functional.layer_norm).
// A group of threads handles one row. Its size follows the row length: the fewest warps
// whose registers hold the row at LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL values per
// thread, at most LAYERNORM_BF16_MAX_ROW_THREADS; a block holds as many groups as fit in
// LAYERNORM_BF16_BLOCK threads (at least one). So one configuration serves short and long
// rows alike. When the row fits in the group's registers (kept as bf16), x is read once and
// the mean and then the variance are computed from the registers (or, with
// LAYERNORM_BF16_SHIFTED 1, both from one reduction of shifted sums); otherwise x is read three
// times (mean, variance, output; two with SHIFTED). LAYERNORM_BF16_VEC counts bf16 values per
// load (8: 16-byte loads). Vector loads are used when cols and the pointers allow them, scalar
// ones otherwise, so every configuration is correct for every shape.
// With `KERNELEVO_SIZE_cols` defined (kernelevo defines it when compiling a one-size bucket's
// winner) the kernel compiles that row length as a constant, checked at run time.
//
// Launch as the spec's `launch` says: RT threads per row, ROWS_PER_BLOCK rows per block.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef LAYERNORM_BF16_BLOCK
#define LAYERNORM_BF16_BLOCK 256
#endif
#ifndef LAYERNORM_BF16_MAX_ROW_THREADS
#define LAYERNORM_BF16_MAX_ROW_THREADS 1024
#endif
#ifndef LAYERNORM_BF16_SHIFTED
#define LAYERNORM_BF16_SHIFTED 0
#endif
#ifndef LAYERNORM_BF16_VEC
#define LAYERNORM_BF16_VEC 8
#endif
#ifndef LAYERNORM_BF16_UNROLL
#define LAYERNORM_BF16_UNROLL 4
#endif
#ifndef LAYERNORM_BF16_LOAD_HINT
#define LAYERNORM_BF16_LOAD_HINT 0
#endif
#ifndef LAYERNORM_BF16_STORE_HINT
#define LAYERNORM_BF16_STORE_HINT 0
#endif
#ifndef LAYERNORM_BF16_EARLY_AFFINE
#define LAYERNORM_BF16_EARLY_AFFINE 0
#endif

// clang-format off
/* @kernelevo
id: layernorm_rows_bf16
kernel: layernorm_rows_bf16
params:
  LAYERNORM_BF16_BLOCK: [64, 128, 256, 512, 1024]
  LAYERNORM_BF16_MAX_ROW_THREADS: [256, 512, 1024]
  LAYERNORM_BF16_VEC: [2, 4, 8]
  LAYERNORM_BF16_UNROLL: [1, 2, 4, 8, 16]
  LAYERNORM_BF16_SHIFTED: [0, 1]
  LAYERNORM_BF16_LOAD_HINT: [0, 1, 2, 3]
  LAYERNORM_BF16_STORE_HINT: [0, 1]
  LAYERNORM_BF16_EARLY_AFFINE: [0, 1]
let:
  RT: "min(LAYERNORM_BF16_MAX_ROW_THREADS, 32 * max(1, ceil_div(cols, 32 * LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL)))"
  ROWS_PER_BLOCK: "max(LAYERNORM_BF16_BLOCK, RT) / RT"
constraints:
  - "LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL <= 64"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
  - {rows: 65, cols: 96}
args:
  - {name: x, type: "const __nv_bfloat16*", count: "rows*cols", init: normal}
  - {name: gamma, type: "const __nv_bfloat16*", count: "cols", init: uniform}
  - {name: beta, type: "const __nv_bfloat16*", count: "cols", init: normal}
  - {name: y, type: "__nv_bfloat16*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
  - {name: eps, type: float, value: 1e-5}
launch:
  grid: ["ceil_div(rows, ROWS_PER_BLOCK)"]
  block: ["ROWS_PER_BLOCK * RT"]
  shared_bytes: "0"
reference: layernorm_rows_bf16_naive
tolerance: {rtol: 8e-3, atol: 8e-3}
metrics: {bytes: "2*rows*cols*2 + 2*cols*2", flops: "7*rows*cols"}
*/
// clang-format on

namespace layernorm_bf16_detail {

// Cache hints for the data that passes through once. Loads (LAYERNORM_BF16_LOAD_HINT): 0 the read-only
// path (ld.global.nc), 1 evict-first in L1 and L2 (ld.global.cs), 2 the read-only path with no
// L1 allocation and an L2 evict-first policy, 3 the coherent path cached in L1 and L2
// (ld.global.ca). Stores (LAYERNORM_BF16_STORE_HINT): 0 plain, 1 evict-first
// (st.global.cs), 2 an L2 evict-last policy (the output stays in L2, where the next kernel
// reads it, rather than the input this kernel is done with).
// Not searched: it wins only by leaving its write-back to after the timed launch, and
// loses wherever that is charged (bench/results/2026-12-07-evict-last-flush); set it by hand.
__device__ __forceinline__ unsigned long long l2_policy_evict_first() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ unsigned long long l2_policy_evict_last() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <typename T>
__device__ __forceinline__ T load_hinted(const T* p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);
  const unsigned long long policy = l2_policy_evict_first();
  T v;
  if constexpr (sizeof(T) == 16) {
    uint4& u = reinterpret_cast<uint4&>(v);
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
        : "l"(p), "l"(policy));
  } else if constexpr (sizeof(T) == 8) {
    uint2& u = reinterpret_cast<uint2&>(v);
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
        : "=r"(u.x), "=r"(u.y)
        : "l"(p), "l"(policy));
  } else if constexpr (sizeof(T) == 4) {
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.u32 %0, [%1], %2;"
        : "=r"(reinterpret_cast<unsigned&>(v))
        : "l"(p), "l"(policy));
  } else {
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.u16 %0, [%1], %2;"
        : "=h"(reinterpret_cast<unsigned short&>(v))
        : "l"(p), "l"(policy));
  }
  return v;
}

template <typename T>
__device__ __forceinline__ void store_hinted(T* p, const T& v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);
  const unsigned long long policy = l2_policy_evict_last();
  if constexpr (sizeof(T) == 16) {
    const uint4& u = reinterpret_cast<const uint4&>(v);
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(u.x),
                 "r"(u.y), "r"(u.z), "r"(u.w), "l"(policy)
                 : "memory");
  } else if constexpr (sizeof(T) == 8) {
    const uint2& u = reinterpret_cast<const uint2&>(v);
    asm volatile("st.global.L2::cache_hint.v2.u32 [%0], {%1, %2}, %3;" ::"l"(p), "r"(u.x), "r"(u.y),
                 "l"(policy)
                 : "memory");
  } else if constexpr (sizeof(T) == 4) {
    asm volatile("st.global.L2::cache_hint.u32 [%0], %1, %2;" ::"l"(p),
                 "r"(reinterpret_cast<const unsigned&>(v)), "l"(policy)
                 : "memory");
  } else {
    asm volatile("st.global.L2::cache_hint.u16 [%0], %1, %2;" ::"l"(p),
                 "h"(reinterpret_cast<const unsigned short&>(v)), "l"(policy)
                 : "memory");
  }
}

template <typename T>
__device__ __forceinline__ T load_once(const T* p) {
#if LAYERNORM_BF16_LOAD_HINT == 1
  return __ldcs(p);
#elif LAYERNORM_BF16_LOAD_HINT == 2
  return load_hinted(p);
#elif LAYERNORM_BF16_LOAD_HINT == 3
  return __ldca(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if LAYERNORM_BF16_STORE_HINT == 1
  __stcs(p, v);
#elif LAYERNORM_BF16_STORE_HINT == 2
  store_hinted(p, v);
#else
  *p = v;
#endif
}

constexpr int kMaxBlock = LAYERNORM_BF16_BLOCK > LAYERNORM_BF16_MAX_ROW_THREADS
                              ? LAYERNORM_BF16_BLOCK
                              : LAYERNORM_BF16_MAX_ROW_THREADS;
constexpr int kUnroll = LAYERNORM_BF16_UNROLL;
constexpr bool kShifted = LAYERNORM_BF16_SHIFTED != 0;
static_assert(LAYERNORM_BF16_MAX_ROW_THREADS % 32 == 0 && LAYERNORM_BF16_BLOCK % 32 == 0 &&
                  kMaxBlock <= 1024,
              "LAYERNORM_BF16_BLOCK and LAYERNORM_BF16_MAX_ROW_THREADS must be multiples of 32, at "
              "most 1024");

// Threads per row, as the spec's RT: the fewest warps holding the row at VEC * UNROLL values
// per thread, at most LAYERNORM_BF16_MAX_ROW_THREADS.
__device__ __forceinline__ int row_threads(int cols) {
  constexpr int per_warp = 32 * LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL;
  const int warps = cols > per_warp ? (cols + per_warp - 1) / per_warp : 1;
  return min(LAYERNORM_BF16_MAX_ROW_THREADS, 32 * warps);
}

// The row group a thread belongs to: `threads` threads, `warps` warps starting at warp
// `first_warp` of the block.
struct Group {
  int threads;
  int lane;
  int warps;
  int first_warp;
};

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

// Sum across the row group. Every thread of the block calls it (it synchronises the block
// when a row spans several warps).
__device__ __forceinline__ float group_sum(float v, const Group& g, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (g.warps > 1) {
    __syncthreads();  // scratch may still be read by an earlier reduction
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[g.first_warp];
    for (int w = 1; w < g.warps; ++w) v += scratch[g.first_warp + w];
  }
  return v;
}

// Sums two values across the row group at once, as group_sum.
__device__ __forceinline__ void group_sum2(float& a, float& b, const Group& g, float2* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_xor_sync(0xffffffffu, a, o);
    b += __shfl_xor_sync(0xffffffffu, b, o);
  }
  if (g.warps > 1) {
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = make_float2(a, b);
    __syncthreads();
    float2 t = scratch[g.first_warp];
    for (int w = 1; w < g.warps; ++w) {
      t.x += scratch[g.first_warp + w].x;
      t.y += scratch[g.first_warp + w].y;
    }
    a = t.x;
    b = t.y;
  }
}

// fits depends on cols only (not on active), so the whole block takes the same branch and
// makes the same group reductions (they synchronise it).
// U: the loads unrolled per thread (LAYERNORM_BF16_UNROLL, or half of it for short rows).
template <int V, int U>
__device__ __forceinline__ void row_layernorm(const __nv_bfloat16* __restrict__ x,
                                              const __nv_bfloat16* __restrict__ gamma,
                                              const __nv_bfloat16* __restrict__ beta,
                                              __nv_bfloat16* __restrict__ y, bool active, int cols,
                                              float eps, const Group& g, float* scratch,
                                              float2* sum2_scratch) {
  using P = typename Pack<V>::type;
  const int lane = g.lane;
  const int stride = g.threads;
  const bool fits = cols / V <= stride * U;  // the same for every group of the grid
  const int nvec = active ? cols / V : 0;
  const P* xv = reinterpret_cast<const P*>(x);
  const P* gv = reinterpret_cast<const P*>(gamma);
  const P* bv = reinterpret_cast<const P*>(beta);
  P* yv = reinterpret_cast<P*>(y);

  if (fits) {
    // The whole row in registers: x read once; the mean then the variance from the registers
    // (two reductions), or with LAYERNORM_BF16_SHIFTED both from one reduction of the sums of
    // the deviations from the row's first value and of their squares (the shift keeps
    // s2/n - (s/n)^2 from cancelling catastrophically when the mean is large).
    P r[U];
    float s = 0.f;
    float s2 = 0.f;
    [[maybe_unused]] const float shift = kShifted ? __bfloat162float(x[0]) : 0.f;
    // Every load is issued before the first use of one: kept inside the loop below, the
    // compiler may branch around each load's arithmetic and wait for each load in turn.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
        r[u] = load_once(xv + i);
      } else {
        r[u] = {};  // defined values for the branch-free output loop
      }
    }
    // With LAYERNORM_BF16_EARLY_AFFINE 1, gamma and beta are loaded with the row, before the reductions, so
    // their latency overlaps the row's instead of following it (more registers held).
    constexpr bool kEarlyAffine = LAYERNORM_BF16_EARLY_AFFINE != 0;
    [[maybe_unused]] P g_early[kEarlyAffine ? U : 1];
    [[maybe_unused]] P b_early[kEarlyAffine ? U : 1];
    if constexpr (kEarlyAffine) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int c = lane + u * stride < cols / V ? lane + u * stride : 0;
        g_early[u] = __ldg(gv + c);
        b_early[u] = __ldg(bv + c);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if constexpr (kShifted) {
            const float d = get<V>(r[u], k) - shift;
            s += d;
            s2 = fmaf(d, d, s2);
          } else {
            s += get<V>(r[u], k);
          }
        }
      }
    }
    float mean;
    float rstd;
    if constexpr (kShifted) {
      group_sum2(s, s2, g, sum2_scratch);
      const float m = s / static_cast<float>(cols);
      mean = shift + m;
      rstd = rsqrtf(fmaxf(s2 / static_cast<float>(cols) - m * m, 0.f) + eps);
    } else {
      mean = group_sum(s, g, scratch) / static_cast<float>(cols);
      float d2 = 0.f;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = lane + u * stride;
        if (i < nvec) {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = get<V>(r[u], k) - mean;
            d2 = fmaf(d, d, d2);
          }
        }
      }
      rstd = rsqrtf(group_sum(d2, g, scratch) / static_cast<float>(cols) + eps);
    }
    // Branch-free but for the store: gamma and beta are read at an index kept in bounds,
    // so the compiler can issue the loop's loads ahead of its arithmetic.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = lane + u * stride;
      const int c = i < cols / V ? i : 0;
      const P gp = (kEarlyAffine ? g_early[u] : __ldg(gv + c));
      const P bp = (kEarlyAffine ? b_early[u] : __ldg(bv + c));
      float o[V];
#pragma unroll
      for (int k = 0; k < V; ++k)
        o[k] = fmaf((get<V>(r[u], k) - mean) * rstd, get<V>(gp, k), get<V>(bp, k));
      if (i < nvec) store_once(yv + i, pack<V>(o));
    }
    return;
  }

  // The row does not fit. The statistics take one pass of shifted sums (SHIFTED) or a pass
  // for the mean and one for the variance; then a pass writes. (The outer loops stay rolled:
  // unrolling them only raises the register count of the whole kernel, fitting rows
  // included.)
  float mean;
  float rstd;
  if constexpr (kShifted) {
    const float shift = __bfloat162float(x[0]);
    float s = 0.f;
    float s2 = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * U) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          const P v = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = get<V>(v, k) - shift;
            s += d;
            s2 = fmaf(d, d, s2);
          }
        }
      }
    }
    group_sum2(s, s2, g, sum2_scratch);
    const float m = s / static_cast<float>(cols);
    mean = shift + m;
    rstd = rsqrtf(fmaxf(s2 / static_cast<float>(cols) - m * m, 0.f) + eps);
  } else {
    float s = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * U) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          const P p = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) s += get<V>(p, k);
        }
      }
    }
    mean = group_sum(s, g, scratch) / static_cast<float>(cols);
    float d2 = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * U) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          const P p = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = get<V>(p, k) - mean;
            d2 = fmaf(d, d, d2);
          }
        }
      }
    }
    rstd = rsqrtf(group_sum(d2, g, scratch) / static_cast<float>(cols) + eps);
  }
#pragma unroll 1
  for (int base = 0; base < nvec; base += stride * U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = base + lane + u * stride;
      if (i < nvec) {
        const P p = load_once(xv + i);
        const P gp = __ldg(gv + i);
        const P bp = __ldg(bv + i);
        float o[V];
#pragma unroll
        for (int k = 0; k < V; ++k)
          o[k] = fmaf((get<V>(p, k) - mean) * rstd, get<V>(gp, k), get<V>(bp, k));
        store_once(yv + i, pack<V>(o));
      }
    }
  }
}

// The kernel's body, inlined into the kernel once for the run-time cols and, with
// KERNELEVO_SIZE_cols defined, once more with cols == KERNELEVO_SIZE_cols as a constant.
__device__ __forceinline__ void layernorm_rows_bf16_body(const __nv_bfloat16* __restrict__ x,
                                                         const __nv_bfloat16* __restrict__ gamma,
                                                         const __nv_bfloat16* __restrict__ beta,
                                                         __nv_bfloat16* __restrict__ y, int rows,
                                                         int cols, float eps) {
  if (cols <= 0) return;  // nothing to normalise; gamma's index below needs cols > 0
  // Two entries per warp: a block launched with a partial last group stays in bounds.
  __shared__ float scratch[2 * kMaxBlock / 32];
  __shared__ float2 sum2_scratch[2 * kMaxBlock / 32];
  Group g;
  g.threads = row_threads(cols);
  g.lane = threadIdx.x % g.threads;
  g.warps = g.threads / 32;
  const int group = threadIdx.x / g.threads;
  g.first_warp = group * g.warps;
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / g.threads) + group;
  // Rows past the end still take part in the block-wide reductions, with no data.
  const bool active = row < rows && group < static_cast<int>(blockDim.x / g.threads);
  const long long offset = (active ? row : 0) * static_cast<long long>(cols);
  constexpr int V = LAYERNORM_BF16_VEC;
  const bool vector_ok =
      V > 1 && cols % V == 0 &&
      ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(gamma) |
        reinterpret_cast<unsigned long long>(beta) | reinterpret_cast<unsigned long long>(y)) %
       (V * sizeof(__nv_bfloat16))) == 0;
  if constexpr (V > 1) {
    // The condition is the same for the whole grid, so the block never diverges on it.
    if (vector_ok) {
      // A row that fits in half the unrolled loads takes a path with half as many, so short
      // rows leave no loads and registers idle (one configuration serves 1024 and 8192
      // columns). cols decides, so the whole grid takes the same path.
      if constexpr (kUnroll > 1) {
        if (cols / V <= g.threads * (kUnroll / 2)) {
          row_layernorm<V, kUnroll / 2>(x + offset, gamma, beta, y + offset, active, cols, eps, g,
                                        scratch, sum2_scratch);
          return;
        }
      }
      row_layernorm<V, kUnroll>(x + offset, gamma, beta, y + offset, active, cols, eps, g, scratch,
                                sum2_scratch);
      return;
    }
  }
  (void)vector_ok;
  row_layernorm<1, kUnroll>(x + offset, gamma, beta, y + offset, active, cols, eps, g, scratch,
                            sum2_scratch);
}

}  // namespace layernorm_bf16_detail

extern "C" __global__ void __launch_bounds__(layernorm_bf16_detail::kMaxBlock)
    layernorm_rows_bf16(const __nv_bfloat16* __restrict__ x,
                        const __nv_bfloat16* __restrict__ gamma,
                        const __nv_bfloat16* __restrict__ beta, __nv_bfloat16* __restrict__ y,
                        int rows, int cols, float eps) {
#ifdef KERNELEVO_SIZE_cols
  if (cols == KERNELEVO_SIZE_cols) {
    layernorm_bf16_detail::layernorm_rows_bf16_body(x, gamma, beta, y, rows, KERNELEVO_SIZE_cols,
                                                    eps);
    return;
  }
#endif
  layernorm_bf16_detail::layernorm_rows_bf16_body(x, gamma, beta, y, rows, cols, eps);
}

// The reference: one thread per row, double accumulation, two passes for the variance, any
// launch geometry.
extern "C" __global__ void layernorm_rows_bf16_naive(const __nv_bfloat16* __restrict__ x,
                                                     const __nv_bfloat16* __restrict__ gamma,
                                                     const __nv_bfloat16* __restrict__ beta,
                                                     __nv_bfloat16* __restrict__ y, int rows,
                                                     int cols, float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const __nv_bfloat16* xr = x + r * cols;
    __nv_bfloat16* yr = y + r * cols;
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += __bfloat162float(xr[c]);
    const double mean = s / cols;
    double d2 = 0.0;
    for (int c = 0; c < cols; ++c) {
      const double d = __bfloat162float(xr[c]) - mean;
      d2 += d * d;
    }
    const double rstd = 1.0 / sqrt(d2 / cols + static_cast<double>(eps));
    for (int c = 0; c < cols; ++c) {
      const double v = (__bfloat162float(xr[c]) - mean) * rstd * __bfloat162float(gamma[c]) +
                       __bfloat162float(beta[c]);
      yr[c] = __float2bfloat16_rn(static_cast<float>(v));
    }
  }
}
