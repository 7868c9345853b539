// Row softmax, fp32: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
// A group of threads handles one row. Its size follows the row length: the fewest warps
// whose registers hold the row at SOFTMAX_VEC * SOFTMAX_UNROLL floats per thread, at most
// SOFTMAX_MAX_ROW_THREADS; a block holds as many groups as fit in SOFTMAX_BLOCK threads
// (at least one). So one configuration serves short and long rows alike. When the row
// fits in the group's registers, x is read once and y written once; otherwise an online
// softmax reads x twice (max and sum in one pass). Vector loads are used when cols and
// both pointers allow them, scalar ones otherwise, so every configuration is correct for
// every shape.
// With `KERNELEVO_SIZE_cols` defined (kernelevo defines it when compiling a one-size bucket's
// winner) the kernel compiles that row length as a constant, checked at run time.
//
// Launch as the spec's `launch` says: RT threads per row, ROWS_PER_BLOCK rows per block.
#include <cuda_runtime.h>
#include <math_constants.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SOFTMAX_BLOCK
#define SOFTMAX_BLOCK 256
#endif
#ifndef SOFTMAX_MAX_ROW_THREADS
#define SOFTMAX_MAX_ROW_THREADS 1024
#endif
#ifndef SOFTMAX_VEC
#define SOFTMAX_VEC 4
#endif
#ifndef SOFTMAX_UNROLL
#define SOFTMAX_UNROLL 8
#endif
#ifndef SOFTMAX_LOAD_HINT
#define SOFTMAX_LOAD_HINT 0
#endif
#ifndef SOFTMAX_STORE_HINT
#define SOFTMAX_STORE_HINT 0
#endif

// clang-format off
/* @kernelevo
id: softmax_rows
kernel: softmax_rows
params:
  SOFTMAX_BLOCK: [64, 128, 256, 512, 1024]
  SOFTMAX_MAX_ROW_THREADS: [256, 512, 1024]
  SOFTMAX_VEC: [1, 2, 4]
  SOFTMAX_UNROLL: [1, 2, 4, 8, 16]
  SOFTMAX_LOAD_HINT: [0, 1, 2, 3]
  SOFTMAX_STORE_HINT: [0, 1]
let:
  RT: "min(SOFTMAX_MAX_ROW_THREADS, 32 * max(1, ceil_div(cols, 32 * SOFTMAX_VEC * SOFTMAX_UNROLL)))"
  ROWS_PER_BLOCK: "max(SOFTMAX_BLOCK, RT) / RT"
constraints:
  - "SOFTMAX_VEC * SOFTMAX_UNROLL <= 32"
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
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch:
  grid: ["ceil_div(rows, ROWS_PER_BLOCK)"]
  block: ["ROWS_PER_BLOCK * RT"]
  shared_bytes: "0"
reference: softmax_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-6}
metrics: {bytes: "2*rows*cols*4", flops: "5*rows*cols"}
*/
// clang-format on

namespace softmax_detail {

// Cache hints for the data that passes through once. Loads (SOFTMAX_LOAD_HINT): 0 the read-only
// path (ld.global.nc), 1 evict-first in L1 and L2 (ld.global.cs), 2 the read-only path with no
// L1 allocation and an L2 evict-first policy, 3 the coherent path cached in L1 and L2
// (ld.global.ca). Stores (SOFTMAX_STORE_HINT): 0 plain, 1 evict-first
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
#if SOFTMAX_LOAD_HINT == 1
  return __ldcs(p);
#elif SOFTMAX_LOAD_HINT == 2
  return load_hinted(p);
#elif SOFTMAX_LOAD_HINT == 3
  return __ldca(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if SOFTMAX_STORE_HINT == 1
  __stcs(p, v);
#elif SOFTMAX_STORE_HINT == 2
  store_hinted(p, v);
#else
  *p = v;
#endif
}

constexpr int kMaxBlock =
    SOFTMAX_BLOCK > SOFTMAX_MAX_ROW_THREADS ? SOFTMAX_BLOCK : SOFTMAX_MAX_ROW_THREADS;
constexpr int kUnroll = SOFTMAX_UNROLL;
constexpr float kLog2e = 1.4426950408889634f;
static_assert(SOFTMAX_MAX_ROW_THREADS % 32 == 0 && SOFTMAX_BLOCK % 32 == 0 && kMaxBlock <= 1024,
              "SOFTMAX_BLOCK and SOFTMAX_MAX_ROW_THREADS must be multiples of 32, at most 1024");

// Threads per row, as the spec's RT: the fewest warps holding the row at VEC * UNROLL floats
// per thread, at most SOFTMAX_MAX_ROW_THREADS.
__device__ __forceinline__ int row_threads(int cols) {
  constexpr int per_warp = 32 * SOFTMAX_VEC * SOFTMAX_UNROLL;
  const int warps = cols > per_warp ? (cols + per_warp - 1) / per_warp : 1;
  return min(SOFTMAX_MAX_ROW_THREADS, 32 * warps);
}

// The row group a thread belongs to: `threads` threads, `warps` warps starting at warp
// `first_warp` of the block.
struct Group {
  int threads;
  int lane;
  int warps;
  int first_warp;
};

template <int V> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

template <int V> __device__ __forceinline__ float& at(typename Vec<V>::type& v, int i) {
  if constexpr (V == 1) {
    return v;
  } else {
    return reinterpret_cast<float*>(&v)[i];
  }
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Reductions across the warps of one row group. Every thread of the block calls them
// (they synchronise the block when a row spans several warps; g.warps is the same for the
// whole block).
__device__ __forceinline__ float group_max(float v, const Group& g, float* scratch) {
  v = warp_max(v);
  if (g.warps > 1) {
    __syncthreads();  // scratch may still be read by an earlier reduction
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[g.first_warp];
    for (int w = 1; w < g.warps; ++w) v = fmaxf(v, scratch[g.first_warp + w]);
  }
  return v;
}
__device__ __forceinline__ float group_sum(float v, const Group& g, float* scratch) {
  v = warp_sum(v);
  if (g.warps > 1) {
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[g.first_warp];
    for (int w = 1; w < g.warps; ++w) v += scratch[g.first_warp + w];
  }
  return v;
}

// Combines two (max, sum of exp2(v*log2e - max)) pairs, max in log2 units.
__device__ __forceinline__ void combine(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  s = (m == -CUDART_INF_F ? 0.f : s * exp2f(m - mn)) + (m2 == -CUDART_INF_F ? 0.f : s2 * exp2f(m2 - mn));
  m = mn;
}

template <int V>
__device__ __forceinline__ void row_softmax(const float* __restrict__ x, float* __restrict__ y,
                                            bool active, int cols, const Group& g,
                                            float* scratch) {
  using T = typename Vec<V>::type;
  const int lane = g.lane;
  const int stride = g.threads;
  const int nvec = active ? cols / V : 0;
  const T* xv = reinterpret_cast<const T*>(x);
  T* yv = reinterpret_cast<T*>(y);

  if (cols / V <= stride * kUnroll) {  // the same for every group of the grid
    // The whole row in registers: one read, one write.
    T r[kUnroll];
    float m = -CUDART_INF_F;
    // Every load is issued before the first use of one: kept inside the loop below, the
    // compiler may branch around each load's arithmetic and wait for each load in turn.
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) r[u] = load_once(xv + i);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) m = fmaxf(m, at<V>(r[u], k));
      }
    }
    m = group_max(m, g, scratch) * kLog2e;
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float e = exp2f(fmaf(at<V>(r[u], k), kLog2e, -m));
          at<V>(r[u], k) = e;
          s += e;
        }
      }
    }
    const float inv = 1.f / group_sum(s, g, scratch);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(r[u], k) *= inv;
        store_once(yv + i, r[u]);
      }
    }
    return;
  }

  // Online softmax: running (max, sum) per thread, then a second pass that writes.
  float m = -CUDART_INF_F;
  float s = 0.f;
  for (int base = 0; base < nvec; base += stride * kUnroll) {
    T r[kUnroll];
    float cm = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * stride;
      if (i < nvec) {
        r[u] = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) cm = fmaxf(cm, at<V>(r[u], k));
      }
    }
    if (cm == -CUDART_INF_F) continue;
    cm *= kLog2e;
    float cs = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * stride;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) cs += exp2f(fmaf(at<V>(r[u], k), kLog2e, -cm));
      }
    }
    combine(m, s, cm, cs);
  }
  const float row_m = group_max(m, g, scratch);
  s = (m == -CUDART_INF_F) ? 0.f : s * exp2f(m - row_m);
  const float inv = 1.f / group_sum(s, g, scratch);
  for (int base = 0; base < nvec; base += stride * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * stride;
      if (i < nvec) {
        T v = load_once(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(v, k) = exp2f(fmaf(at<V>(v, k), kLog2e, -row_m)) * inv;
        store_once(yv + i, v);
      }
    }
  }
}

// The kernel's body, inlined into the kernel once for the run-time cols and, with
// KERNELEVO_SIZE_cols defined, once more with cols == KERNELEVO_SIZE_cols as a constant.
__device__ __forceinline__ void softmax_rows_body(const float* __restrict__ x,
                                                  float* __restrict__ y, int rows, int cols) {
  // Two entries per warp: a block launched with a partial last group stays in bounds.
  __shared__ float scratch[2 * kMaxBlock / 32];
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
  const float* xr = x + offset;
  float* yr = y + offset;
  constexpr int V = SOFTMAX_VEC;
  const bool vector_ok = V > 1 && cols % V == 0 &&
                         ((reinterpret_cast<unsigned long long>(x) |
                           reinterpret_cast<unsigned long long>(y)) % (V * sizeof(float))) == 0;
  if constexpr (V > 1) {
    // The condition is the same for the whole grid, so the block never diverges on it.
    if (vector_ok) {
      row_softmax<V>(xr, yr, active, cols, g, scratch);
      return;
    }
  }
  (void)vector_ok;
  row_softmax<1>(xr, yr, active, cols, g, scratch);
}

}  // namespace softmax_detail

extern "C" __global__ void __launch_bounds__(softmax_detail::kMaxBlock)
    softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
#ifdef KERNELEVO_SIZE_cols
  if (cols == KERNELEVO_SIZE_cols) {
    softmax_detail::softmax_rows_body(x, y, rows, KERNELEVO_SIZE_cols);
    return;
  }
#endif
  softmax_detail::softmax_rows_body(x, y, rows, cols);
}

// The reference: one thread per row, double accumulation, any launch geometry.
extern "C" __global__ void softmax_rows_naive(const float* __restrict__ x, float* __restrict__ y,
                                              int rows, int cols) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -CUDART_INF_F;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += exp(static_cast<double>(xr[c]) - m);
    for (int c = 0; c < cols; ++c) yr[c] = static_cast<float>(exp(static_cast<double>(xr[c]) - m) / s);
  }
}
