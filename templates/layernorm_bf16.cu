// Layer normalisation over rows, bf16 in and out, fp32 math, with a learned scale and shift:
//   y[r, c] = (x[r, c] - mean) / sqrt(var + eps) * gamma[c] + beta[c]
// with the biased variance of row r (as torch.nn.functional.layer_norm).
// A group of LAYERNORM_BF16_ROW_THREADS threads handles one row; a block holds
// LAYERNORM_BF16_BLOCK / LAYERNORM_BF16_ROW_THREADS rows. When the row fits in the group's
// registers (LAYERNORM_BF16_ROW_THREADS * LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL
// elements, kept as bf16), x is read once and the mean and then the variance are computed
// from the registers; otherwise x is read three times (mean, variance, output).
// LAYERNORM_BF16_VEC counts bf16 values per load (8: 16-byte loads). Vector loads are used
// when cols and the pointers allow them, scalar ones otherwise, so every configuration is
// correct for every shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef LAYERNORM_BF16_BLOCK
#define LAYERNORM_BF16_BLOCK 256
#endif
#ifndef LAYERNORM_BF16_ROW_THREADS
#define LAYERNORM_BF16_ROW_THREADS 256
#endif
#ifndef LAYERNORM_BF16_VEC
#define LAYERNORM_BF16_VEC 8
#endif
#ifndef LAYERNORM_BF16_UNROLL
#define LAYERNORM_BF16_UNROLL 4
#endif

// clang-format off
/* @kernelevo
id: layernorm_rows_bf16
kernel: layernorm_rows_bf16
params:
  LAYERNORM_BF16_BLOCK: [64, 128, 256, 512, 1024]
  LAYERNORM_BF16_ROW_THREADS: [32, 64, 128, 256, 512, 1024]
  LAYERNORM_BF16_VEC: [2, 4, 8]
  LAYERNORM_BF16_UNROLL: [1, 2, 4, 8, 16]
constraints:
  - "LAYERNORM_BF16_ROW_THREADS <= LAYERNORM_BF16_BLOCK"
  - "LAYERNORM_BF16_VEC * LAYERNORM_BF16_UNROLL <= 64"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
args:
  - {name: x, type: "const __nv_bfloat16*", count: "rows*cols", init: normal}
  - {name: gamma, type: "const __nv_bfloat16*", count: "cols", init: uniform}
  - {name: beta, type: "const __nv_bfloat16*", count: "cols", init: normal}
  - {name: y, type: "__nv_bfloat16*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
  - {name: eps, type: float, value: 1e-5}
launch:
  grid: ["ceil_div(rows, LAYERNORM_BF16_BLOCK / LAYERNORM_BF16_ROW_THREADS)"]
  block: ["LAYERNORM_BF16_BLOCK"]
  shared_bytes: "0"
reference: layernorm_rows_bf16_naive
tolerance: {rtol: 8e-3, atol: 8e-3}
metrics: {bytes: "2*rows*cols*2 + 2*cols*2", flops: "7*rows*cols"}
*/
// clang-format on

namespace layernorm_bf16_detail {

constexpr int kBlock = LAYERNORM_BF16_BLOCK;
constexpr int kRowThreads = LAYERNORM_BF16_ROW_THREADS;
constexpr int kRowsPerBlock = kBlock / kRowThreads;
constexpr int kWarpsPerRow = kRowThreads / 32;
constexpr int kWarps = kBlock / 32;
constexpr int kUnroll = LAYERNORM_BF16_UNROLL;
static_assert(kRowThreads % 32 == 0 && kBlock % kRowThreads == 0,
              "LAYERNORM_BF16_ROW_THREADS must be a multiple of 32 dividing LAYERNORM_BF16_BLOCK");

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
__device__ __forceinline__ void row_layernorm(const __nv_bfloat16* __restrict__ x,
                                              const __nv_bfloat16* __restrict__ gamma,
                                              const __nv_bfloat16* __restrict__ beta,
                                              __nv_bfloat16* __restrict__ y, bool active, int cols,
                                              float eps, float* scratch) {
  using P = typename Pack<V>::type;
  const int lane = threadIdx.x % kRowThreads;
  const bool fits = cols / V <= kRowThreads * kUnroll;
  const int nvec = active ? cols / V : 0;
  const P* xv = reinterpret_cast<const P*>(x);
  const P* gv = reinterpret_cast<const P*>(gamma);
  const P* bv = reinterpret_cast<const P*>(beta);
  P* yv = reinterpret_cast<P*>(y);

  if (fits) {
    // The whole row in registers: x read once, mean then variance from the registers.
    P r[kUnroll];
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        r[u] = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) s += get<V>(r[u], k);
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
          const float d = get<V>(r[u], k) - mean;
          d2 = fmaf(d, d, d2);
        }
      }
    }
    const float rstd = rsqrtf(group_sum(d2, scratch) / static_cast<float>(cols) + eps);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        const P g = __ldg(gv + i);
        const P b = __ldg(bv + i);
        float o[V];
#pragma unroll
        for (int k = 0; k < V; ++k)
          o[k] = fmaf((get<V>(r[u], k) - mean) * rstd, get<V>(g, k), get<V>(b, k));
        __stcs(yv + i, pack<V>(o));
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
        const P p = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) s += get<V>(p, k);
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
        const P p = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float d = get<V>(p, k) - mean;
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
        const P p = __ldcs(xv + i);
        const P g = __ldg(gv + i);
        const P b = __ldg(bv + i);
        float o[V];
#pragma unroll
        for (int k = 0; k < V; ++k)
          o[k] = fmaf((get<V>(p, k) - mean) * rstd, get<V>(g, k), get<V>(b, k));
        __stcs(yv + i, pack<V>(o));
      }
    }
  }
}

}  // namespace layernorm_bf16_detail

extern "C" __global__ void __launch_bounds__(LAYERNORM_BF16_BLOCK)
    layernorm_rows_bf16(const __nv_bfloat16* __restrict__ x,
                        const __nv_bfloat16* __restrict__ gamma,
                        const __nv_bfloat16* __restrict__ beta, __nv_bfloat16* __restrict__ y,
                        int rows, int cols, float eps) {
  using namespace layernorm_bf16_detail;
  __shared__ float scratch[kWarps];
  const long long row =
      static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool active = row < rows;
  // Rows past the end still take part in the block-wide reductions, with no data.
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
      row_layernorm<V>(x + offset, gamma, beta, y + offset, active, cols, eps, scratch);
      return;
    }
  }
  (void)vector_ok;
  row_layernorm<1>(x + offset, gamma, beta, y + offset, active, cols, eps, scratch);
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
