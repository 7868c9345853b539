// RMS normalisation, fp32, with a learned scale:
//   y[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * gamma[c]
// A group of RMSNORM_ROW_THREADS threads handles one row; a block holds
// RMSNORM_BLOCK / RMSNORM_ROW_THREADS rows. When the row fits in the group's registers
// (RMSNORM_ROW_THREADS * RMSNORM_VEC * RMSNORM_UNROLL elements), x is read once;
// otherwise a second pass reads it again. Vector loads are used when cols and the
// pointers allow them, scalar ones otherwise, so every configuration is correct for every
// shape.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef RMSNORM_BLOCK
#define RMSNORM_BLOCK 256
#endif
#ifndef RMSNORM_ROW_THREADS
#define RMSNORM_ROW_THREADS 256
#endif
#ifndef RMSNORM_VEC
#define RMSNORM_VEC 4
#endif
#ifndef RMSNORM_UNROLL
#define RMSNORM_UNROLL 8
#endif

// clang-format off
/* @kernelevo
id: rmsnorm_rows
kernel: rmsnorm_rows
params:
  RMSNORM_BLOCK: [64, 128, 256, 512, 1024]
  RMSNORM_ROW_THREADS: [32, 64, 128, 256, 512, 1024]
  RMSNORM_VEC: [1, 2, 4]
  RMSNORM_UNROLL: [1, 2, 4, 8, 16]
constraints:
  - "RMSNORM_ROW_THREADS <= RMSNORM_BLOCK"
  - "RMSNORM_VEC * RMSNORM_UNROLL <= 32"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: normal}
  - {name: gamma, type: "const float*", count: "cols", init: uniform}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
  - {name: eps, type: float, value: 1e-5}
launch:
  grid: ["ceil_div(rows, RMSNORM_BLOCK / RMSNORM_ROW_THREADS)"]
  block: ["RMSNORM_BLOCK"]
  shared_bytes: "0"
reference: rmsnorm_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-6}
metrics: {bytes: "(2*rows*cols + cols)*4", flops: "4*rows*cols"}
*/
// clang-format on

namespace rmsnorm_detail {

constexpr int kBlock = RMSNORM_BLOCK;
constexpr int kRowThreads = RMSNORM_ROW_THREADS;
constexpr int kRowsPerBlock = kBlock / kRowThreads;
constexpr int kWarpsPerRow = kRowThreads / 32;
constexpr int kUnroll = RMSNORM_UNROLL;
static_assert(kRowThreads % 32 == 0 && kBlock % kRowThreads == 0,
              "RMSNORM_ROW_THREADS must be a multiple of 32 dividing RMSNORM_BLOCK");

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

// Sum across the row group. Every thread of the block calls it (it synchronises the block
// when a row spans several warps).
__device__ __forceinline__ float group_sum(float v, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if constexpr (kWarpsPerRow > 1) {
    const int warp = threadIdx.x / 32;
    const int first = (threadIdx.x / kRowThreads) * kWarpsPerRow;
    if (threadIdx.x % 32 == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) v += scratch[first + w];
  }
  return v;
}

template <int V>
__device__ __forceinline__ void row_rmsnorm(const float* __restrict__ x,
                                            const float* __restrict__ gamma,
                                            float* __restrict__ y, bool active, int cols,
                                            float eps, float* scratch) {
  using T = typename Vec<V>::type;
  const int lane = threadIdx.x % kRowThreads;
  const int nvec = active ? cols / V : 0;
  const T* xv = reinterpret_cast<const T*>(x);
  const T* gv = reinterpret_cast<const T*>(gamma);
  T* yv = reinterpret_cast<T*>(y);

  if (nvec <= kRowThreads * kUnroll) {
    // The whole row in registers: x read once.
    T r[kUnroll];
    float ss = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        r[u] = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) ss = fmaf(at<V>(r[u], k), at<V>(r[u], k), ss);
      }
    }
    const float scale = rsqrtf(group_sum(ss, scratch) / static_cast<float>(cols) + eps);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        T g = __ldg(gv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(r[u], k) = at<V>(r[u], k) * scale * at<V>(g, k);
        __stcs(yv + i, r[u]);
      }
    }
    return;
  }

  float ss = 0.f;
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        T v = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) ss = fmaf(at<V>(v, k), at<V>(v, k), ss);
      }
    }
  }
  const float scale = rsqrtf(group_sum(ss, scratch) / static_cast<float>(cols) + eps);
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        T v = __ldcs(xv + i);
        T g = __ldg(gv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) at<V>(v, k) = at<V>(v, k) * scale * at<V>(g, k);
        __stcs(yv + i, v);
      }
    }
  }
}

}  // namespace rmsnorm_detail

extern "C" __global__ void __launch_bounds__(RMSNORM_BLOCK)
    rmsnorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                 float* __restrict__ y, int rows, int cols, float eps) {
  using namespace rmsnorm_detail;
  __shared__ float scratch[kBlock / 32];
  const long long row = static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool active = row < rows;
  // Rows past the end still take part in the block-wide reduction, with no data.
  const long long offset = (active ? row : 0) * static_cast<long long>(cols);
  constexpr int V = RMSNORM_VEC;
  const bool vector_ok = V > 1 && cols % V == 0 &&
                         ((reinterpret_cast<unsigned long long>(x) |
                           reinterpret_cast<unsigned long long>(gamma) |
                           reinterpret_cast<unsigned long long>(y)) % (V * sizeof(float))) == 0;
  if constexpr (V > 1) {
    // The condition is the same for the whole grid, so the block never diverges on it.
    if (vector_ok) {
      row_rmsnorm<V>(x + offset, gamma, y + offset, active, cols, eps, scratch);
      return;
    }
  }
  (void)vector_ok;
  row_rmsnorm<1>(x + offset, gamma, y + offset, active, cols, eps, scratch);
}

// The reference: one thread per row, double accumulation, any launch geometry.
extern "C" __global__ void rmsnorm_rows_naive(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              float* __restrict__ y, int rows, int cols,
                                              float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double ss = 0.0;
    for (int c = 0; c < cols; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const double scale = 1.0 / sqrt(ss / cols + static_cast<double>(eps));
    for (int c = 0; c < cols; ++c) yr[c] = static_cast<float>(xr[c] * scale * gamma[c]);
  }
}
