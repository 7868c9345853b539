// Layer normalisation over rows, fp32, with a learned scale and shift:
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * gamma[c] + beta[c]
// with the biased variance of row r (as torch.nn.functional.layer_norm).
// A group of LAYERNORM_ROW_THREADS threads handles one row; a block holds
// LAYERNORM_BLOCK / LAYERNORM_ROW_THREADS rows. When the row fits in the group's registers
// (LAYERNORM_ROW_THREADS * LAYERNORM_VEC * LAYERNORM_UNROLL elements), x is read once and
// the mean and then the variance are computed from the registers; otherwise x is read
// three times (mean, variance, output). Vector loads are used when cols and the pointers
// allow them, scalar ones otherwise, so every configuration is correct for every shape.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef LAYERNORM_BLOCK
#define LAYERNORM_BLOCK 256
#endif
#ifndef LAYERNORM_ROW_THREADS
#define LAYERNORM_ROW_THREADS 256
#endif
#ifndef LAYERNORM_VEC
#define LAYERNORM_VEC 4
#endif
#ifndef LAYERNORM_UNROLL
#define LAYERNORM_UNROLL 8
#endif

// clang-format off
/* @kernelevo
id: layernorm_rows
kernel: layernorm_rows
params:
  LAYERNORM_BLOCK: [64, 128, 256, 512, 1024]
  LAYERNORM_ROW_THREADS: [32, 64, 128, 256, 512, 1024]
  LAYERNORM_VEC: [1, 2, 4]
  LAYERNORM_UNROLL: [1, 2, 4, 8, 16]
constraints:
  - "LAYERNORM_ROW_THREADS <= LAYERNORM_BLOCK"
  - "LAYERNORM_VEC * LAYERNORM_UNROLL <= 32"
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
  - {name: beta, type: "const float*", count: "cols", init: normal}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
  - {name: eps, type: float, value: 1e-5}
launch:
  grid: ["ceil_div(rows, LAYERNORM_BLOCK / LAYERNORM_ROW_THREADS)"]
  block: ["LAYERNORM_BLOCK"]
  shared_bytes: "0"
reference: layernorm_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-5}
metrics: {bytes: "2*rows*cols*4 + 2*cols*4", flops: "7*rows*cols"}
*/
// clang-format on

namespace layernorm_detail {

constexpr int kBlock = LAYERNORM_BLOCK;
constexpr int kRowThreads = LAYERNORM_ROW_THREADS;
constexpr int kRowsPerBlock = kBlock / kRowThreads;
constexpr int kWarpsPerRow = kRowThreads / 32;
constexpr int kWarps = kBlock / 32;
constexpr int kUnroll = LAYERNORM_UNROLL;
static_assert(kRowThreads % 32 == 0 && kBlock % kRowThreads == 0,
              "LAYERNORM_ROW_THREADS must be a multiple of 32 dividing LAYERNORM_BLOCK");

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
// when a row spans several warps).
__device__ __forceinline__ float group_sum(float v, float* scratch) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if constexpr (kWarpsPerRow > 1) {
    const int warp = threadIdx.x / 32;
    const int first = (threadIdx.x / kRowThreads) * kWarpsPerRow;
    __syncthreads();  // scratch may still be read by an earlier reduction
    if (threadIdx.x % 32 == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[first];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) v += scratch[first + w];
  }
  return v;
}

// fits depends on cols only, so the whole block takes the same branch (both synchronise it).
template <int V>
__device__ __forceinline__ void row_layernorm(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta, float* __restrict__ y,
                                              bool active, int cols, float eps, float* scratch) {
  using T = typename Vec<V>::type;
  const int lane = threadIdx.x % kRowThreads;
  const bool fits = cols / V <= kRowThreads * kUnroll;
  const int nvec = active ? cols / V : 0;
  const T* xv = reinterpret_cast<const T*>(x);
  const T* gv = reinterpret_cast<const T*>(gamma);
  const T* bv = reinterpret_cast<const T*>(beta);
  T* yv = reinterpret_cast<T*>(y);

  if (fits) {
    // The whole row in registers: x read once, mean then variance from the registers.
    T r[kUnroll];
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        r[u] = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) s += at<V>(r[u], k);
      }
    }
    const float mean = group_sum(s, scratch) / static_cast<float>(cols);
    float d2 = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float d = at<V>(r[u], k) - mean;
          d2 = fmaf(d, d, d2);
        }
      }
    }
    const float rstd = rsqrtf(group_sum(d2, scratch) / static_cast<float>(cols) + eps);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        T g = __ldg(gv + i);
        T b = __ldg(bv + i);
#pragma unroll
        for (int k = 0; k < V; ++k)
          at<V>(r[u], k) = fmaf((at<V>(r[u], k) - mean) * rstd, at<V>(g, k), at<V>(b, k));
        __stcs(yv + i, r[u]);
      }
    }
    return;
  }

  // The row does not fit: one pass for the mean, one for the variance, one that writes.
  // (The outer loops stay rolled: unrolling them only raises the register count of the
  // whole kernel, fitting rows included.)
  float s = 0.f;
#pragma unroll 1
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        T v = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) s += at<V>(v, k);
      }
    }
  }
  const float mean = group_sum(s, scratch) / static_cast<float>(cols);
  float d2 = 0.f;
#pragma unroll 1
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
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
  const float rstd = rsqrtf(group_sum(d2, scratch) / static_cast<float>(cols) + eps);
#pragma unroll 1
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        T v = __ldcs(xv + i);
        T g = __ldg(gv + i);
        T b = __ldg(bv + i);
#pragma unroll
        for (int k = 0; k < V; ++k)
          at<V>(v, k) = fmaf((at<V>(v, k) - mean) * rstd, at<V>(g, k), at<V>(b, k));
        __stcs(yv + i, v);
      }
    }
  }
}

}  // namespace layernorm_detail

extern "C" __global__ void __launch_bounds__(LAYERNORM_BLOCK)
    layernorm_rows(const float* __restrict__ x, const float* __restrict__ gamma,
                   const float* __restrict__ beta, float* __restrict__ y, int rows, int cols,
                   float eps) {
  using namespace layernorm_detail;
  __shared__ float scratch[kWarps];
  const long long row =
      static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool active = row < rows;
  // Rows past the end still take part in the block-wide reductions, with no data.
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
      row_layernorm<V>(x + offset, gamma, beta, y + offset, active, cols, eps, scratch);
      return;
    }
  }
  (void)vector_ok;
  row_layernorm<1>(x + offset, gamma, beta, y + offset, active, cols, eps, scratch);
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
