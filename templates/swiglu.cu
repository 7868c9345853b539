// SwiGLU activation (the MoE / LLaMA MLP gate), bf16 in and out, fp32 inside:
//   y[r, h] = silu(x[r, h]) * x[r, hidden + h],  silu(g) = g / (1 + exp(-g)),
// where each row of x holds the gate in columns [0, hidden) and the up projection in
// [hidden, 2 * hidden). A thread owns SWIGLU_COL_UNROLL vectors of SWIGLU_VEC columns and
// handles them in SWIGLU_ROWS rows at a time, so 2 * COL_UNROLL * ROWS loads are in
// flight. Vector accesses (up to 8 bf16, 16 bytes) are used when hidden and the pointers
// allow them, scalar ones otherwise, so every configuration is correct for every shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SWIGLU_BLOCK
#define SWIGLU_BLOCK 256
#endif
#ifndef SWIGLU_VEC
#define SWIGLU_VEC 8
#endif
#ifndef SWIGLU_COL_UNROLL
#define SWIGLU_COL_UNROLL 1
#endif
#ifndef SWIGLU_ROWS
#define SWIGLU_ROWS 2
#endif
#ifndef SWIGLU_STREAMING
#define SWIGLU_STREAMING 0
#endif

// clang-format off
/* @kernelevo
id: swiglu_bf16
kernel: swiglu_bf16
params:
  SWIGLU_BLOCK: [64, 128, 256, 512, 1024]
  SWIGLU_VEC: [1, 2, 4, 8]
  SWIGLU_COL_UNROLL: [1, 2, 4]
  SWIGLU_ROWS: [1, 2, 4, 8]
  SWIGLU_STREAMING: [0, 1]
constraints:
  - "SWIGLU_VEC * SWIGLU_COL_UNROLL * SWIGLU_ROWS <= 64"
  - "SWIGLU_BLOCK * SWIGLU_VEC * SWIGLU_COL_UNROLL * SWIGLU_ROWS <= 32768"
problems:
  - {rows: 8192, hidden: 14336}
  - {rows: 2048, hidden: 4096}
validate:
  - {rows: 3, hidden: 1001}
  - {rows: 5, hidden: 4099}
  - {rows: 1000, hidden: 3}
  - {rows: 17, hidden: 4100}
args:
  - {name: x, type: "const __nv_bfloat16*", count: "rows*2*hidden", init: normal}
  - {name: y, type: "__nv_bfloat16*", count: "rows*hidden", output: true}
  - {name: rows, type: int, value: rows}
  - {name: hidden, type: int, value: hidden}
launch:
  grid: ["ceil_div(hidden, SWIGLU_BLOCK * SWIGLU_VEC * SWIGLU_COL_UNROLL)", "min(ceil_div(rows, SWIGLU_ROWS), 65535)"]
  block: ["SWIGLU_BLOCK"]
  shared_bytes: "0"
reference: swiglu_bf16_naive
tolerance: {rtol: 8e-3, atol: 8e-3}
metrics: {bytes: "3*rows*hidden*2", flops: "5*rows*hidden"}
*/
// clang-format on

namespace swiglu_detail {

// Data that passes through once: loaded and stored evict-first (ld.global.cs, st.global.cs)
// with SWIGLU_STREAMING 1; otherwise loaded through the read-only path and stored plainly.
template <typename T>
__device__ __forceinline__ T load_once(const T* p) {
#if SWIGLU_STREAMING
  return __ldcs(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if SWIGLU_STREAMING
  __stcs(p, v);
#else
  *p = v;
#endif
}

constexpr int kBlock = SWIGLU_BLOCK;
constexpr int kColUnroll = SWIGLU_COL_UNROLL;
// Columns one block covers, whatever the access width.
constexpr int kBlockCols = kBlock * SWIGLU_VEC * kColUnroll;
constexpr int kRows = SWIGLU_ROWS;

// V bf16 values moved by one load or store.
template <int V>
struct Raw;
template <>
struct Raw<1> {
  using type = unsigned short;
};
template <>
struct Raw<2> {
  using type = unsigned int;
};
template <>
struct Raw<4> {
  using type = uint2;
};
template <>
struct Raw<8> {
  using type = uint4;
};

template <int V>
__device__ __forceinline__ __nv_bfloat16& at(typename Raw<V>::type& v, int i) {
  return reinterpret_cast<__nv_bfloat16*>(&v)[i];
}

__device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.f + __expf(-g)) * u; }

// V: bf16 values per access (hidden % V == 0 when V > 1).
// A block covers kBlockCols columns in kGroups groups of kBlock * V; the scalar path
// uses more, narrower groups, so both paths cover the columns the launch grid assumes.
template <int V, int kGroups>
__device__ __forceinline__ void swiglu_rows(const __nv_bfloat16* __restrict__ x,
                                            __nv_bfloat16* __restrict__ y, int rows, int hidden) {
  using T = typename Raw<V>::type;
  const int first_col = blockIdx.x * kBlockCols + threadIdx.x * V;
  const long long x_pitch = 2LL * hidden;
  for (long long r0 = static_cast<long long>(blockIdx.y) * kRows; r0 < rows;
       r0 += static_cast<long long>(gridDim.y) * kRows) {
    T gate[kRows][kGroups];
    T up[kRows][kGroups];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
#pragma unroll
      for (int u = 0; u < kGroups; ++u) {
        const int c = first_col + u * kBlock * V;
        // With V > 1, hidden % V == 0, so a vector is either wholly inside or wholly outside.
        if (r0 + k < rows && c < hidden) {
          const __nv_bfloat16* row = x + (r0 + k) * x_pitch + c;
          gate[k][u] = load_once(reinterpret_cast<const T*>(row));
          up[k][u] = load_once(reinterpret_cast<const T*>(row + hidden));
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
#pragma unroll
      for (int u = 0; u < kGroups; ++u) {
        const int c = first_col + u * kBlock * V;
        if (r0 + k < rows && c < hidden) {
          T out;
#pragma unroll
          for (int j = 0; j < V; ++j)
            at<V>(out, j) = __float2bfloat16_rn(silu_mul(__bfloat162float(at<V>(gate[k][u], j)),
                                                         __bfloat162float(at<V>(up[k][u], j))));
          store_once(reinterpret_cast<T*>(y + (r0 + k) * hidden + c), out);
        }
      }
    }
  }
}

}  // namespace swiglu_detail

extern "C" __global__ void __launch_bounds__(SWIGLU_BLOCK)
    swiglu_bf16(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int rows,
                int hidden) {
  using namespace swiglu_detail;
  constexpr int V = SWIGLU_VEC;
  if constexpr (V > 1) {
    const bool vector_ok =
        hidden % V == 0 &&
        ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) %
         (V * sizeof(__nv_bfloat16))) == 0;
    if (vector_ok) {
      swiglu_rows<V, kColUnroll>(x, y, rows, hidden);
      return;
    }
  }
  swiglu_rows<1, kColUnroll * SWIGLU_VEC>(x, y, rows, hidden);
}

// The reference: one thread per element of y, fp32 with full-precision exp and division,
// any launch geometry.
extern "C" __global__ void swiglu_bf16_naive(const __nv_bfloat16* __restrict__ x,
                                             __nv_bfloat16* __restrict__ y, int rows, int hidden) {
  const long long n = static_cast<long long>(rows) * hidden;
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * blockDim.x;
  const long long first =
      (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  for (long long i = first; i < n; i += threads) {
    const long long r = i / hidden;
    const long long h = i % hidden;
    const float g = __bfloat162float(x[r * 2 * hidden + h]);
    const float u = __bfloat162float(x[r * 2 * hidden + hidden + h]);
    y[i] = __float2bfloat16_rn(g / (1.f + expf(-g)) * u);
  }
}
