// Row softmax, fp32: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
// A group of SOFTMAX_ROW_THREADS threads handles one row; a block holds
// SOFTMAX_BLOCK / SOFTMAX_ROW_THREADS rows. When the row fits in the group's registers
// (SOFTMAX_ROW_THREADS * SOFTMAX_VEC * SOFTMAX_UNROLL elements), x is read once and y
// written once; otherwise an online softmax reads x twice (max and sum in one pass).
// Vector loads are used when cols and both pointers allow them, scalar ones otherwise,
// so every configuration is correct for every shape.
#include <cuda_runtime.h>
#include <math_constants.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SOFTMAX_BLOCK
#define SOFTMAX_BLOCK 256
#endif
#ifndef SOFTMAX_ROW_THREADS
#define SOFTMAX_ROW_THREADS 256
#endif
#ifndef SOFTMAX_VEC
#define SOFTMAX_VEC 4
#endif
#ifndef SOFTMAX_UNROLL
#define SOFTMAX_UNROLL 8
#endif

// clang-format off
/* @kernelevo
id: softmax_rows
kernel: softmax_rows
params:
  SOFTMAX_BLOCK: [64, 128, 256, 512, 1024]
  SOFTMAX_ROW_THREADS: [32, 64, 128, 256, 512, 1024]
  SOFTMAX_VEC: [1, 2, 4]
  SOFTMAX_UNROLL: [1, 2, 4, 8, 16]
constraints:
  - "SOFTMAX_ROW_THREADS <= SOFTMAX_BLOCK"
  - "SOFTMAX_VEC * SOFTMAX_UNROLL <= 32"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: normal}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch:
  grid: ["ceil_div(rows, SOFTMAX_BLOCK / SOFTMAX_ROW_THREADS)"]
  block: ["SOFTMAX_BLOCK"]
  shared_bytes: "0"
dispatch: {by: [cols], buckets: [[0, 2048], [4096, null]], entries: [softmax_rows_launch]}
reference: softmax_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-6}
metrics: {bytes: "2*rows*cols*4", flops: "5*rows*cols"}
*/
// clang-format on

namespace softmax_detail {

constexpr int kBlock = SOFTMAX_BLOCK;
constexpr int kRowThreads = SOFTMAX_ROW_THREADS;
constexpr int kRowsPerBlock = kBlock / kRowThreads;
constexpr int kWarpsPerRow = kRowThreads / 32;
constexpr int kUnroll = SOFTMAX_UNROLL;
constexpr float kLog2e = 1.4426950408889634f;
static_assert(kRowThreads % 32 == 0 && kBlock % kRowThreads == 0,
              "SOFTMAX_ROW_THREADS must be a multiple of 32 dividing SOFTMAX_BLOCK");

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
// (they synchronise the block when a row spans several warps).
__device__ __forceinline__ float group_max(float v, float* scratch) {
  v = warp_max(v);
  if constexpr (kWarpsPerRow > 1) {
    const int warp = threadIdx.x / 32;
    const int first = (threadIdx.x / kRowThreads) * kWarpsPerRow;
    __syncthreads();  // scratch may still be read by an earlier reduction
    if (threadIdx.x % 32 == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) v = fmaxf(v, scratch[first + w]);
  }
  return v;
}
__device__ __forceinline__ float group_sum(float v, float* scratch) {
  v = warp_sum(v);
  if constexpr (kWarpsPerRow > 1) {
    const int warp = threadIdx.x / 32;
    const int first = (threadIdx.x / kRowThreads) * kWarpsPerRow;
    __syncthreads();
    if (threadIdx.x % 32 == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) v += scratch[first + w];
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
                                            bool active, int cols, float* scratch) {
  using T = typename Vec<V>::type;
  const int lane = threadIdx.x % kRowThreads;
  const int nvec = active ? cols / V : 0;
  const T* xv = reinterpret_cast<const T*>(x);
  T* yv = reinterpret_cast<T*>(y);

  if (nvec <= kRowThreads * kUnroll) {
    // The whole row in registers: one read, one write.
    T r[kUnroll];
    float m = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        r[u] = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) m = fmaxf(m, at<V>(r[u], k));
      }
    }
    m = group_max(m, scratch) * kLog2e;
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float e = exp2f(fmaf(at<V>(r[u], k), kLog2e, -m));
          at<V>(r[u], k) = e;
          s += e;
        }
      }
    }
    const float inv = 1.f / group_sum(s, scratch);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(r[u], k) *= inv;
        __stcs(yv + i, r[u]);
      }
    }
    return;
  }

  // Online softmax: running (max, sum) per thread, then a second pass that writes.
  float m = -CUDART_INF_F;
  float s = 0.f;
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
    T r[kUnroll];
    float cm = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
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
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) cs += exp2f(fmaf(at<V>(r[u], k), kLog2e, -cm));
      }
    }
    combine(m, s, cm, cs);
  }
  const float row_m = group_max(m, scratch);
  s = (m == -CUDART_INF_F) ? 0.f : s * exp2f(m - row_m);
  const float inv = 1.f / group_sum(s, scratch);
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        T v = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(v, k) = exp2f(fmaf(at<V>(v, k), kLog2e, -row_m)) * inv;
        __stcs(yv + i, v);
      }
    }
  }
}

}  // namespace softmax_detail

extern "C" __global__ void __launch_bounds__(SOFTMAX_BLOCK)
    softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  using namespace softmax_detail;
  __shared__ float scratch[kBlock / 32];
  const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool active = row < rows;
  // Rows past the end still take part in the block-wide reductions, with no data.
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
      row_softmax<V>(xr, yr, active, cols, scratch);
      return;
    }
  }
  (void)vector_ok;
  row_softmax<1>(xr, yr, active, cols, scratch);
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

// ---------------------------------------------------------------------------------------
// Host launcher (added by this example to the template). It reads the tuned values at run
// time, so with several built architectures it gets the values of the device code that
// loads (docs/spike-build.md). With `dispatch`, the build compiles this file once per
// distinct winner and renames it softmax_rows_launch_kev<K> in each (`entries`); the
// softmax_rows_launch that users call is then softmax_launch.cu's, which picks the variant
// of the problem's bucket.
#include "kernels.h"

extern "C" LaunchConfig softmax_rows_launch(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  LaunchConfig config{};
  config.block = SOFTMAX_BLOCK;
  config.row_threads = SOFTMAX_ROW_THREADS;
  config.vec = SOFTMAX_VEC;
  config.unroll = SOFTMAX_UNROLL;
  const int rows_per_block = config.block / config.row_threads;
  config.grid = (rows + rows_per_block - 1) / rows_per_block;
  softmax_rows<<<config.grid, config.block, 0, stream>>>(x, y, rows, cols);
  return config;
}
