// Bias add then GELU, fp32: y[r, c] = gelu(x[r, c] + bias[c]) with the exact erf GELU,
// gelu(v) = v / 2 * (1 + erf(v / sqrt(2))) (the default of torch.nn.functional.gelu).
// A thread owns BIAS_GELU_COL_UNROLL vectors of BIAS_GELU_VEC columns, reads their bias
// once, and handles them in BIAS_GELU_ROWS rows at a time, so COL_UNROLL * ROWS loads are
// in flight. Vector accesses are used when cols and the pointers allow them, scalar ones
// otherwise, so every configuration is correct for every shape.
// With `KERNELEVO_SIZE_cols` defined (kernelevo defines it when compiling a one-size bucket's
// winner) the kernel compiles that row length as a constant, checked at run time.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef BIAS_GELU_BLOCK
#define BIAS_GELU_BLOCK 256
#endif
#ifndef BIAS_GELU_VEC
#define BIAS_GELU_VEC 4
#endif
#ifndef BIAS_GELU_COL_UNROLL
#define BIAS_GELU_COL_UNROLL 1
#endif
#ifndef BIAS_GELU_ROWS
#define BIAS_GELU_ROWS 4
#endif
#ifndef BIAS_GELU_LOAD_HINT
#define BIAS_GELU_LOAD_HINT 0
#endif
#ifndef BIAS_GELU_STORE_HINT
#define BIAS_GELU_STORE_HINT 0
#endif

// clang-format off
/* @kernelevo
id: bias_gelu
kernel: bias_gelu
params:
  BIAS_GELU_BLOCK: [64, 128, 256, 512, 1024]
  BIAS_GELU_VEC: [1, 2, 4]
  BIAS_GELU_COL_UNROLL: [1, 2, 4, 8]
  BIAS_GELU_ROWS: [1, 2, 4, 8, 16, 32]
  BIAS_GELU_LOAD_HINT: [0, 1, 2, 3]
  BIAS_GELU_STORE_HINT: [0, 1]
constraints:
  - "BIAS_GELU_VEC * BIAS_GELU_COL_UNROLL * BIAS_GELU_ROWS <= 32"
  - "BIAS_GELU_BLOCK * BIAS_GELU_VEC * BIAS_GELU_COL_UNROLL * BIAS_GELU_ROWS <= 16384"
problems:
  - {rows: 8192, cols: 8192}
  - {rows: 4096, cols: 4096}
validate:
  - {rows: 3, cols: 1000}
  - {rows: 7, cols: 1001}
  - {rows: 1000, cols: 3}
  - {rows: 33, cols: 4100}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: normal}
  - {name: bias, type: "const float*", count: "cols", init: uniform}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch:
  grid: ["ceil_div(cols, BIAS_GELU_BLOCK * BIAS_GELU_VEC * BIAS_GELU_COL_UNROLL)", "min(ceil_div(rows, BIAS_GELU_ROWS), 65535)"]
  block: ["BIAS_GELU_BLOCK"]
  shared_bytes: "0"
reference: bias_gelu_naive
tolerance: {rtol: 1e-5, atol: 1e-6}
metrics: {bytes: "(2*rows*cols + cols)*4", flops: "12*rows*cols"}
*/
// clang-format on

namespace bias_gelu_detail {

// Cache hints for the data that passes through once. Loads (BIAS_GELU_LOAD_HINT): 0 the read-only
// path (ld.global.nc), 1 evict-first in L1 and L2 (ld.global.cs), 2 the read-only path with no
// L1 allocation and an L2 evict-first policy, 3 the coherent path cached in L1 and L2
// (ld.global.ca). Stores (BIAS_GELU_STORE_HINT): 0 plain, 1 evict-first
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
#if BIAS_GELU_LOAD_HINT == 1
  return __ldcs(p);
#elif BIAS_GELU_LOAD_HINT == 2
  return load_hinted(p);
#elif BIAS_GELU_LOAD_HINT == 3
  return __ldca(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if BIAS_GELU_STORE_HINT == 1
  __stcs(p, v);
#elif BIAS_GELU_STORE_HINT == 2
  store_hinted(p, v);
#else
  *p = v;
#endif
}

constexpr int kBlock = BIAS_GELU_BLOCK;
constexpr int kColUnroll = BIAS_GELU_COL_UNROLL;
// Columns one block covers, whatever the access width.
constexpr int kBlockCols = kBlock * BIAS_GELU_VEC * kColUnroll;
constexpr int kRows = BIAS_GELU_ROWS;

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

__device__ __forceinline__ float gelu(float v) {
  return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

// V: floats per access (cols % V == 0 when V > 1).
// A block covers kBlockCols columns in kGroups groups of kBlock * V; the scalar path
// uses more, narrower groups, so both paths cover the columns the launch grid assumes.
template <int V, int kGroups>
__device__ __forceinline__ void bias_gelu_rows(const float* __restrict__ x,
                                               const float* __restrict__ bias,
                                               float* __restrict__ y, int rows, int cols) {
  using T = typename Vec<V>::type;
  const int first_col = blockIdx.x * kBlockCols + threadIdx.x * V;
  T b[kGroups];
#pragma unroll
  for (int u = 0; u < kGroups; ++u) {
    const int c = first_col + u * kBlock * V;
    // With V > 1, cols % V == 0, so a vector is either wholly inside or wholly outside.
    if (c < cols) b[u] = __ldg(reinterpret_cast<const T*>(bias + c));
  }
  for (long long r0 = static_cast<long long>(blockIdx.y) * kRows; r0 < rows;
       r0 += static_cast<long long>(gridDim.y) * kRows) {
    T v[kRows][kGroups];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
#pragma unroll
      for (int u = 0; u < kGroups; ++u) {
        const int c = first_col + u * kBlock * V;
        if (r0 + k < rows && c < cols)
          v[k][u] = load_once(reinterpret_cast<const T*>(x + (r0 + k) * cols + c));
      }
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
#pragma unroll
      for (int u = 0; u < kGroups; ++u) {
        const int c = first_col + u * kBlock * V;
        if (r0 + k < rows && c < cols) {
#pragma unroll
          for (int j = 0; j < V; ++j) at<V>(v[k][u], j) = gelu(at<V>(v[k][u], j) + at<V>(b[u], j));
          store_once(reinterpret_cast<T*>(y + (r0 + k) * cols + c), v[k][u]);
        }
      }
    }
  }
}

// The kernel's body, inlined into the kernel once for the run-time cols and, with
// KERNELEVO_SIZE_cols defined, once more with cols == KERNELEVO_SIZE_cols as a constant.
__device__ __forceinline__ void bias_gelu_body(const float* __restrict__ x,
                                               const float* __restrict__ bias,
                                               float* __restrict__ y, int rows, int cols) {
  constexpr int V = BIAS_GELU_VEC;
  if constexpr (V > 1) {
    const bool vector_ok = cols % V == 0 && ((reinterpret_cast<unsigned long long>(x) |
                                              reinterpret_cast<unsigned long long>(bias) |
                                              reinterpret_cast<unsigned long long>(y)) %
                                             (V * sizeof(float))) == 0;
    if (vector_ok) {
      bias_gelu_rows<V, kColUnroll>(x, bias, y, rows, cols);
      return;
    }
  }
  bias_gelu_rows<1, kColUnroll * BIAS_GELU_VEC>(x, bias, y, rows, cols);
}

}  // namespace bias_gelu_detail

extern "C" __global__ void __launch_bounds__(BIAS_GELU_BLOCK)
    bias_gelu(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ y,
              int rows, int cols) {
#ifdef KERNELEVO_SIZE_cols
  if (cols == KERNELEVO_SIZE_cols) {
    bias_gelu_detail::bias_gelu_body(x, bias, y, rows, KERNELEVO_SIZE_cols);
    return;
  }
#endif
  bias_gelu_detail::bias_gelu_body(x, bias, y, rows, cols);
}

// The reference: one thread per element, fp64, any launch geometry.
extern "C" __global__ void bias_gelu_naive(const float* __restrict__ x,
                                           const float* __restrict__ bias, float* __restrict__ y,
                                           int rows, int cols) {
  const long long n = static_cast<long long>(rows) * cols;
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * blockDim.x;
  const long long first =
      (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  for (long long i = first; i < n; i += threads) {
    const double v = static_cast<double>(x[i]) + bias[i % cols];
    y[i] = static_cast<float>(0.5 * v * (1.0 + erf(v * 0.70710678118654752440)));
  }
}
