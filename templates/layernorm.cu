// Layer normalisation over rows, fp32, with a learned scale and shift:
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * gamma[c] + beta[c]
// with the biased variance of row r (as torch.nn.functional.layer_norm).
// A group of threads handles one row. Its size follows the row length: the fewest warps
// whose registers hold the row at LAYERNORM_VEC * LAYERNORM_UNROLL floats per thread, at
// most LAYERNORM_MAX_ROW_THREADS; a block holds as many groups as fit in LAYERNORM_BLOCK
// threads (at least one), so one configuration serves short and long rows alike. When the
// row fits in the group's registers, x is read once and one reduction gives both statistics:
// each thread's mean and squared deviations merged (LAYERNORM_SHIFTED 0), or sums of the
// deviations from the row's first value and of their squares (1). Otherwise x is read three
// times (mean, variance, output). Vector loads are used when cols and the pointers allow
// them, scalar ones otherwise, so every configuration is correct for every shape.
// With `KERNELEVO_SIZE_cols` defined (kernelevo defines it when compiling a one-size bucket's
// winner) the kernel compiles that row length as a constant, checked at run time.
//
// Launch as the spec's `launch` says: RT threads per row, ROWS_PER_BLOCK rows per block.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef LAYERNORM_BLOCK
#define LAYERNORM_BLOCK 256
#endif
#ifndef LAYERNORM_MAX_ROW_THREADS
#define LAYERNORM_MAX_ROW_THREADS 512
#endif
#ifndef LAYERNORM_VEC
#define LAYERNORM_VEC 4
#endif
#ifndef LAYERNORM_UNROLL
#define LAYERNORM_UNROLL 8
#endif
#ifndef LAYERNORM_SHIFTED
#define LAYERNORM_SHIFTED 0
#endif
#ifndef LAYERNORM_LOAD_HINT
#define LAYERNORM_LOAD_HINT 0
#endif
#ifndef LAYERNORM_STORE_HINT
#define LAYERNORM_STORE_HINT 0
#endif
#ifndef LAYERNORM_EARLY_AFFINE
#define LAYERNORM_EARLY_AFFINE 0
#endif

// clang-format off
/* @kernelevo
id: layernorm_rows
kernel: layernorm_rows
params:
  LAYERNORM_BLOCK: [64, 128, 256, 512, 1024]
  LAYERNORM_MAX_ROW_THREADS: [256, 512, 1024]
  LAYERNORM_VEC: [1, 2, 4]
  LAYERNORM_UNROLL: [1, 2, 4, 8, 16]
  LAYERNORM_SHIFTED: [0, 1]
  LAYERNORM_LOAD_HINT: [0, 1, 2, 3]
  LAYERNORM_STORE_HINT: [0, 1]
  LAYERNORM_EARLY_AFFINE: [0, 1]
let:
  RT: "min(LAYERNORM_MAX_ROW_THREADS, 32 * max(1, ceil_div(cols, 32 * LAYERNORM_VEC * LAYERNORM_UNROLL)))"
  ROWS_PER_BLOCK: "max(LAYERNORM_BLOCK, RT) / RT"
constraints:
  - "LAYERNORM_VEC * LAYERNORM_UNROLL <= 32"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
  - {rows: 8192, cols: 16384}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
  - {rows: 65, cols: 96}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: normal}
  - {name: gamma, type: "const float*", count: "cols", init: uniform}
  - {name: beta, type: "const float*", count: "cols", init: normal}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
  - {name: eps, type: float, value: 1e-5}
launch:
  grid: ["ceil_div(rows, ROWS_PER_BLOCK)"]
  block: ["ROWS_PER_BLOCK * RT"]
  shared_bytes: "0"
reference: layernorm_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-5}
metrics: {bytes: "2*rows*cols*4 + 2*cols*4", flops: "7*rows*cols"}
*/
// clang-format on

namespace layernorm_detail {

// Cache hints for the data that passes through once. Loads (LAYERNORM_LOAD_HINT): 0 the read-only
// path (ld.global.nc), 1 evict-first in L1 and L2 (ld.global.cs), 2 the read-only path with no
// L1 allocation and an L2 evict-first policy, 3 the coherent path cached in L1 and L2
// (ld.global.ca). Stores (LAYERNORM_STORE_HINT): 0 plain, 1 evict-first
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
#if LAYERNORM_LOAD_HINT == 1
  return __ldcs(p);
#elif LAYERNORM_LOAD_HINT == 2
  return load_hinted(p);
#elif LAYERNORM_LOAD_HINT == 3
  return __ldca(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if LAYERNORM_STORE_HINT == 1
  __stcs(p, v);
#elif LAYERNORM_STORE_HINT == 2
  store_hinted(p, v);
#else
  *p = v;
#endif
}

constexpr int kMaxBlock =
    LAYERNORM_BLOCK > LAYERNORM_MAX_ROW_THREADS ? LAYERNORM_BLOCK : LAYERNORM_MAX_ROW_THREADS;
constexpr int kUnroll = LAYERNORM_UNROLL;
constexpr bool kShifted = LAYERNORM_SHIFTED != 0;
static_assert(LAYERNORM_MAX_ROW_THREADS % 32 == 0 && LAYERNORM_BLOCK % 32 == 0 &&
                  kMaxBlock <= 1024,
              "LAYERNORM_BLOCK and LAYERNORM_MAX_ROW_THREADS must be multiples of 32, at most 1024");

// Threads per row, as the spec's RT: the fewest warps holding the row at VEC * UNROLL floats
// per thread, at most LAYERNORM_MAX_ROW_THREADS.
__device__ __forceinline__ int row_threads(int cols) {
  constexpr int per_warp = 32 * LAYERNORM_VEC * LAYERNORM_UNROLL;
  const int warps = cols > per_warp ? (cols + per_warp - 1) / per_warp : 1;
  return min(LAYERNORM_MAX_ROW_THREADS, 32 * warps);
}

// The row group a thread belongs to: `threads` threads, `warps` warps starting at warp
// `first_warp` of the block.
struct Group {
  int threads;
  int lane;
  int warps;
  int first_warp;
};

template <int V>
struct Vec;
template <>
struct Vec<1> {
  using type = float;
};
template <>
struct Vec<2> {
  using type = float2;
};
template <>
struct Vec<4> {
  using type = float4;
};

template <int V>
__device__ __forceinline__ float& at(typename Vec<V>::type& v, int i) {
  if constexpr (V == 1) {
    return v;
  } else {
    return reinterpret_cast<float*>(&v)[i];
  }
}

// Sum across the row group. Every thread of the block calls it (it synchronises the block
// when a row spans several warps; g.warps is the same for the whole block).
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

// (count, mean, sum of squared deviations) of a set of values.
struct Stats {
  float n;
  float mean;
  float m2;
};

// The statistics of the union of two disjoint sets.
__device__ __forceinline__ Stats merge(const Stats& a, const Stats& b) {
  const float n = a.n + b.n;
  if (n == 0.f) return a;
  const float d = b.mean - a.mean;
  const float fb = b.n / n;
  return {n, fmaf(d, fb, a.mean), a.m2 + b.m2 + d * d * a.n * fb};
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

// Merges the statistics across the row group, as group_sum.
__device__ __forceinline__ Stats group_stats(Stats t, const Group& g, Stats* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const Stats other{__shfl_xor_sync(0xffffffffu, t.n, o), __shfl_xor_sync(0xffffffffu, t.mean, o),
                      __shfl_xor_sync(0xffffffffu, t.m2, o)};
    t = merge(t, other);
  }
  if (g.warps > 1) {
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = t;
    __syncthreads();
    t = scratch[g.first_warp];
    for (int w = 1; w < g.warps; ++w) t = merge(t, scratch[g.first_warp + w]);
  }
  return t;
}

// fits depends on cols only, so the whole block takes the same branch (both synchronise it).
template <int V>
__device__ __forceinline__ void row_layernorm(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta, float* __restrict__ y,
                                              bool active, int cols, float eps, const Group& grp,
                                              float* scratch, Stats* stats_scratch,
                                              float2* sum2_scratch) {
  using T = typename Vec<V>::type;
  const int lane = grp.lane;
  const int stride = grp.threads;
  const bool fits = cols / V <= stride * kUnroll;
  const int nvec = active ? cols / V : 0;
  const T* xv = reinterpret_cast<const T*>(x);
  const T* gv = reinterpret_cast<const T*>(gamma);
  const T* bv = reinterpret_cast<const T*>(beta);
  T* yv = reinterpret_cast<T*>(y);

  if (fits) {
    // The whole row in registers: x read once, one reduction for both statistics.
    T r[kUnroll];
    float s = 0.f;
    float s2 = 0.f;
    // Shifted sums: deviations from a value of the row itself (its first), so the variance
    // s2/n - (s/n)^2 does not cancel catastrophically when the mean is large.
    [[maybe_unused]] const float shift = kShifted ? __ldg(x) : 0.f;
    // Every load is issued before the first use of one: kept inside the loop below, the
    // compiler may branch around each load's arithmetic and wait for each load in turn.
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
        r[u] = load_once(xv + i);
      } else {
        r[u] = {};  // defined values for the branch-free output loop
      }
    }
    // With LAYERNORM_EARLY_AFFINE 1, gamma and beta are loaded with the row, before the reductions, so
    // their latency overlaps the row's instead of following it (more registers held).
    constexpr bool kEarlyAffine = LAYERNORM_EARLY_AFFINE != 0;
    [[maybe_unused]] T g_early[kEarlyAffine ? kUnroll : 1];
    [[maybe_unused]] T b_early[kEarlyAffine ? kUnroll : 1];
    if constexpr (kEarlyAffine) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int c = lane + u * stride < cols / V ? lane + u * stride : 0;
        g_early[u] = __ldg(gv + c);
        b_early[u] = __ldg(bv + c);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if constexpr (kShifted) {
            const float d = at<V>(r[u], k) - shift;
            s += d;
            s2 = fmaf(d, d, s2);
          } else {
            s += at<V>(r[u], k);
          }
        }
      }
    }
    float mean;
    float var;
    if constexpr (kShifted) {
      group_sum2(s, s2, grp, sum2_scratch);
      const float m = s / static_cast<float>(cols);
      mean = shift + m;
      var = fmaxf(s2 / static_cast<float>(cols) - m * m, 0.f);
    } else {
      // Each thread's mean and squared deviations, merged in one reduction (Chan et al.):
      // as stable as two passes over the row.
      const int mine = nvec > lane ? ((nvec - lane + stride - 1) / stride) * V : 0;
      Stats t{static_cast<float>(mine), mine > 0 ? s / static_cast<float>(mine) : 0.f, 0.f};
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int i = lane + u * stride;
        if (i < nvec) {
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = at<V>(r[u], k) - t.mean;
            t.m2 = fmaf(d, d, t.m2);
          }
        }
      }
      t = group_stats(t, grp, stats_scratch);
      mean = t.mean;
      var = t.m2 / static_cast<float>(cols);
    }
    const float rstd = rsqrtf(var + eps);
    // Branch-free but for the store: gamma and beta are read at an index kept in bounds,
    // so the compiler can issue the loop's loads ahead of its arithmetic.
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      const int c = i < cols / V ? i : 0;
      T g = (kEarlyAffine ? g_early[u] : __ldg(gv + c));
      T b = (kEarlyAffine ? b_early[u] : __ldg(bv + c));
#pragma unroll
      for (int k = 0; k < V; ++k)
        at<V>(r[u], k) = fmaf((at<V>(r[u], k) - mean) * rstd, at<V>(g, k), at<V>(b, k));
      if (i < nvec) store_once(yv + i, r[u]);
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
    const float shift = __ldg(x);
    float s = 0.f;
    float s2 = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          T v = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = at<V>(v, k) - shift;
            s += d;
            s2 = fmaf(d, d, s2);
          }
        }
      }
    }
    group_sum2(s, s2, grp, sum2_scratch);
    const float m = s / static_cast<float>(cols);
    mean = shift + m;
    rstd = rsqrtf(fmaxf(s2 / static_cast<float>(cols) - m * m, 0.f) + eps);
  } else {
    float s = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          T v = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) s += at<V>(v, k);
        }
      }
    }
    mean = group_sum(s, grp, scratch) / static_cast<float>(cols);
    float d2 = 0.f;
#pragma unroll 1
    for (int base = 0; base < nvec; base += stride * kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int i = base + lane + u * stride;
        if (i < nvec) {
          T v = __ldg(xv + i);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            const float d = at<V>(v, k) - mean;
            d2 = fmaf(d, d, d2);
          }
        }
      }
    }
    rstd = rsqrtf(group_sum(d2, grp, scratch) / static_cast<float>(cols) + eps);
  }
#pragma unroll 1
  for (int base = 0; base < nvec; base += stride * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * stride;
      if (i < nvec) {
        T v = load_once(xv + i);
        T g = __ldg(gv + i);
        T b = __ldg(bv + i);
#pragma unroll
        for (int k = 0; k < V; ++k)
          at<V>(v, k) = fmaf((at<V>(v, k) - mean) * rstd, at<V>(g, k), at<V>(b, k));
        store_once(yv + i, v);
      }
    }
  }
}

// The kernel's body, inlined into the kernel once for the run-time cols and, with
// KERNELEVO_SIZE_cols defined, once more with cols == KERNELEVO_SIZE_cols as a constant.
__device__ __forceinline__ void layernorm_rows_body(const float* __restrict__ x,
                                                    const float* __restrict__ gamma,
                                                    const float* __restrict__ beta,
                                                    float* __restrict__ y, int rows, int cols,
                                                    float eps) {
  if (cols <= 0) return;  // nothing to normalise; gamma's index below needs cols > 0
  // Two entries per warp: a block launched with a partial last group stays in bounds.
  __shared__ float scratch[2 * kMaxBlock / 32];
  __shared__ Stats stats_scratch[2 * kMaxBlock / 32];
  __shared__ float2 sum2_scratch[2 * kMaxBlock / 32];
  Group grp;
  grp.threads = row_threads(cols);
  grp.lane = threadIdx.x % grp.threads;
  grp.warps = grp.threads / 32;
  const int group = threadIdx.x / grp.threads;
  grp.first_warp = group * grp.warps;
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / grp.threads) + group;
  // Rows past the end still take part in the block-wide reductions, with no data.
  const bool active = row < rows && group < static_cast<int>(blockDim.x / grp.threads);
  const long long offset = (active ? row : 0) * static_cast<long long>(cols);
  constexpr int V = LAYERNORM_VEC;
  const bool vector_ok =
      V > 1 && cols % V == 0 &&
      ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(gamma) |
        reinterpret_cast<unsigned long long>(beta) | reinterpret_cast<unsigned long long>(y)) %
       (V * sizeof(float))) == 0;
  if constexpr (V > 1) {
    // The condition is the same for the whole grid, so the block never diverges on it.
    if (vector_ok) {
      row_layernorm<V>(x + offset, gamma, beta, y + offset, active, cols, eps, grp, scratch, stats_scratch, sum2_scratch);
      return;
    }
  }
  (void)vector_ok;
  row_layernorm<1>(x + offset, gamma, beta, y + offset, active, cols, eps, grp, scratch, stats_scratch, sum2_scratch);
}

}  // namespace layernorm_detail

extern "C" __global__ void __launch_bounds__(layernorm_detail::kMaxBlock)
    layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                   const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                   float eps) {
#ifdef KERNELEVO_SIZE_cols
  if (cols == KERNELEVO_SIZE_cols) {
    layernorm_detail::layernorm_rows_body(x, gamma, beta, y, rows, KERNELEVO_SIZE_cols, eps);
    return;
  }
#endif
  layernorm_detail::layernorm_rows_body(x, gamma, beta, y, rows, cols, eps);
}

// The reference: one thread per row, double accumulation, two passes for the variance, any
// launch geometry.
extern "C" __global__ void layernorm_rows_naive(const float* __restrict__ x,
                                                const float* __restrict__ gamma,
                                                const float* __restrict__ beta,
                                                float* __restrict__ y, int rows, int cols,
                                                float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += xr[c];
    const double mean = s / cols;
    double d2 = 0.0;
    for (int c = 0; c < cols; ++c) d2 += (xr[c] - mean) * (xr[c] - mean);
    const double rstd = 1.0 / sqrt(d2 / cols + static_cast<double>(eps));
    for (int c = 0; c < cols; ++c)
      yr[c] = static_cast<float>((xr[c] - mean) * rstd * gamma[c] + beta[c]);
  }
}
