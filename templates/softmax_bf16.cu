// Row softmax, bf16 in and out, fp32 math:
//   y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
// A group of SOFTMAX_BF16_ROW_THREADS threads handles one row; a block holds
// SOFTMAX_BF16_BLOCK / SOFTMAX_BF16_ROW_THREADS rows. When the row fits in the group's
// registers (SOFTMAX_BF16_ROW_THREADS * SOFTMAX_BF16_VEC * SOFTMAX_BF16_UNROLL elements,
// kept as fp32), x is read once and y written once; otherwise an online softmax reads x
// twice (max and sum in one pass). SOFTMAX_BF16_VEC counts bf16 values per load (8: 16-byte
// loads). Vector loads are used when cols and both pointers allow them, scalar ones
// otherwise, so every configuration is correct for every shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SOFTMAX_BF16_BLOCK
#define SOFTMAX_BF16_BLOCK 256
#endif
#ifndef SOFTMAX_BF16_ROW_THREADS
#define SOFTMAX_BF16_ROW_THREADS 256
#endif
#ifndef SOFTMAX_BF16_VEC
#define SOFTMAX_BF16_VEC 8
#endif
#ifndef SOFTMAX_BF16_UNROLL
#define SOFTMAX_BF16_UNROLL 4
#endif

// clang-format off
/* @kernelevo
id: softmax_rows_bf16
kernel: softmax_rows_bf16
params:
  SOFTMAX_BF16_BLOCK: [64, 128, 256, 512, 1024]
  SOFTMAX_BF16_ROW_THREADS: [32, 64, 128, 256, 512, 1024]
  SOFTMAX_BF16_VEC: [2, 4, 8]
  SOFTMAX_BF16_UNROLL: [1, 2, 4, 8, 16]
constraints:
  - "SOFTMAX_BF16_ROW_THREADS <= SOFTMAX_BF16_BLOCK"
  - "SOFTMAX_BF16_VEC * SOFTMAX_BF16_UNROLL <= 32"
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1024}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 2, cols: 40000}
args:
  - {name: x, type: "const __nv_bfloat16*", count: "rows*cols", init: normal}
  - {name: y, type: "__nv_bfloat16*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch:
  grid: ["ceil_div(rows, SOFTMAX_BF16_BLOCK / SOFTMAX_BF16_ROW_THREADS)"]
  block: ["SOFTMAX_BF16_BLOCK"]
  shared_bytes: "0"
reference: softmax_rows_bf16_naive
tolerance: {rtol: 8e-3, atol: 8e-3}
metrics: {bytes: "2*rows*cols*2", flops: "5*rows*cols"}
*/
// clang-format on

namespace softmax_bf16_detail {

constexpr int kBlock = SOFTMAX_BF16_BLOCK;
constexpr int kRowThreads = SOFTMAX_BF16_ROW_THREADS;
constexpr int kRowsPerBlock = kBlock / kRowThreads;
constexpr int kWarpsPerRow = kRowThreads / 32;
constexpr int kUnroll = SOFTMAX_BF16_UNROLL;
constexpr float kLog2e = 1.4426950408889634f;
static_assert(kRowThreads % 32 == 0 && kBlock % kRowThreads == 0,
              "SOFTMAX_BF16_ROW_THREADS must be a multiple of 32 dividing SOFTMAX_BF16_BLOCK");

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
  s = (m == -CUDART_INF_F ? 0.f : s * exp2f(m - mn)) +
      (m2 == -CUDART_INF_F ? 0.f : s2 * exp2f(m2 - mn));
  m = mn;
}

// fits depends on cols only, so the whole block takes the same branch (both synchronise it).
template <int V>
__device__ __forceinline__ void row_softmax(const __nv_bfloat16* __restrict__ x,
                                            __nv_bfloat16* __restrict__ y, bool active, int cols,
                                            float* scratch) {
  using P = typename Pack<V>::type;
  const int lane = threadIdx.x % kRowThreads;
  const bool fits = cols / V <= kRowThreads * kUnroll;
  const int nvec = active ? cols / V : 0;
  const P* xv = reinterpret_cast<const P*>(x);
  P* yv = reinterpret_cast<P*>(y);

  if (fits) {
    // The whole row in registers as fp32: one read, one write, each exp computed once.
    float r[kUnroll][V];
    float m = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
        const P p = __ldcs(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) {
          r[u][k] = get<V>(p, k);
          m = fmaxf(m, r[u][k]);
        }
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
          r[u][k] = exp2f(fmaf(r[u][k], kLog2e, -m));
          s += r[u][k];
        }
      }
    }
    const float inv = 1.f / group_sum(s, scratch);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = lane + u * kRowThreads;
      if (i < nvec) {
#pragma unroll
        for (int k = 0; k < V; ++k) r[u][k] *= inv;
        __stcs(yv + i, pack<V>(r[u]));
      }
    }
    return;
  }

  // Online softmax: running (max, sum) per thread, then a second pass that writes. (The
  // outer loops stay rolled: unrolling them only raises the register count of the whole
  // kernel, fitting rows included.)
  float m = -CUDART_INF_F;
  float s = 0.f;
#pragma unroll 1
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
    P r[kUnroll];
    float cm = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        r[u] = __ldg(xv + i);
#pragma unroll
        for (int k = 0; k < V; ++k) cm = fmaxf(cm, get<V>(r[u], k));
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
        for (int k = 0; k < V; ++k) cs += exp2f(fmaf(get<V>(r[u], k), kLog2e, -cm));
      }
    }
    combine(m, s, cm, cs);
  }
  const float row_m = group_max(m, scratch);
  s = (m == -CUDART_INF_F) ? 0.f : s * exp2f(m - row_m);
  const float inv = 1.f / group_sum(s, scratch);
#pragma unroll 1
  for (int base = 0; base < nvec; base += kRowThreads * kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = base + lane + u * kRowThreads;
      if (i < nvec) {
        const P p = __ldcs(xv + i);
        float o[V];
#pragma unroll
        for (int k = 0; k < V; ++k) o[k] = exp2f(fmaf(get<V>(p, k), kLog2e, -row_m)) * inv;
        __stcs(yv + i, pack<V>(o));
      }
    }
  }
}

}  // namespace softmax_bf16_detail

extern "C" __global__ void __launch_bounds__(SOFTMAX_BF16_BLOCK)
    softmax_rows_bf16(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int rows,
                      int cols) {
  using namespace softmax_bf16_detail;
  __shared__ float scratch[kBlock / 32];
  const long long row =
      static_cast<long long>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRowThreads;
  const bool active = row < rows;
  // Rows past the end still take part in the block-wide reductions, with no data.
  const long long offset = (active ? row : 0) * static_cast<long long>(cols);
  const __nv_bfloat16* xr = x + offset;
  __nv_bfloat16* yr = y + offset;
  constexpr int V = SOFTMAX_BF16_VEC;
  const bool vector_ok =
      V > 1 && cols % V == 0 &&
      ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) %
       (V * sizeof(__nv_bfloat16))) == 0;
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
extern "C" __global__ void softmax_rows_bf16_naive(const __nv_bfloat16* __restrict__ x,
                                                   __nv_bfloat16* __restrict__ y, int rows,
                                                   int cols) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += stride) {
    const __nv_bfloat16* xr = x + r * cols;
    __nv_bfloat16* yr = y + r * cols;
    float m = -CUDART_INF_F;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, __bfloat162float(xr[c]));
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += exp(static_cast<double>(__bfloat162float(xr[c])) - m);
    for (int c = 0; c < cols; ++c) {
      const double e = exp(static_cast<double>(__bfloat162float(xr[c])) - m) / s;
      yr[c] = __float2bfloat16_rn(static_cast<float>(e));
    }
  }
}
