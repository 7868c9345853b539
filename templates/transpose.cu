// Matrix transpose, fp32: y[c * rows + r] = x[r * cols + c] for x of rows x cols.
// A block moves one TRANSPOSE_TILE_ROWS x TRANSPOSE_TILE_COLS tile through shared memory:
// it reads the tile's rows of x (coalesced), then writes the tile's columns as rows of y
// (coalesced). The shared tile avoids bank conflicts by one float of padding per row or by
// an XOR swizzle of the column (TRANSPOSE_SWIZZLE). Loads use vectors of TRANSPOSE_VEC
// floats when cols and x allow them, stores when rows and y allow them, scalar accesses
// otherwise, so every configuration is correct for every shape.
// With `KERNELEVO_SIZE_cols` defined (kernelevo defines it when compiling a one-size bucket's
// winner) the kernel compiles that row length (of x) as a constant, checked at run time.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef TRANSPOSE_TILE_ROWS
#define TRANSPOSE_TILE_ROWS 32
#endif
#ifndef TRANSPOSE_TILE_COLS
#define TRANSPOSE_TILE_COLS 32
#endif
#ifndef TRANSPOSE_THREADS
#define TRANSPOSE_THREADS 256
#endif
#ifndef TRANSPOSE_VEC
#define TRANSPOSE_VEC 1
#endif
#ifndef TRANSPOSE_SWIZZLE
#define TRANSPOSE_SWIZZLE 0
#endif
#ifndef TRANSPOSE_LOAD_HINT
#define TRANSPOSE_LOAD_HINT 0
#endif
#ifndef TRANSPOSE_STORE_HINT
#define TRANSPOSE_STORE_HINT 0
#endif

// clang-format off
/* @kernelevo
id: transpose
kernel: transpose
params:
  TRANSPOSE_TILE_ROWS: [16, 32, 64]
  TRANSPOSE_TILE_COLS: [16, 32, 64]
  TRANSPOSE_THREADS: [64, 128, 256, 512, 1024]
  TRANSPOSE_VEC: [1, 2, 4]
  TRANSPOSE_SWIZZLE: [0, 1]
  TRANSPOSE_LOAD_HINT: [0, 1, 2, 3]
  TRANSPOSE_STORE_HINT: [0, 1]
constraints:
  - "TRANSPOSE_TILE_ROWS * TRANSPOSE_TILE_COLS >= TRANSPOSE_THREADS * TRANSPOSE_VEC"
  - "TRANSPOSE_TILE_ROWS * TRANSPOSE_TILE_COLS <= TRANSPOSE_THREADS * 32"
problems:
  - {rows: 8192, cols: 8192}
  - {rows: 4096, cols: 16384}
validate:
  - {rows: 33, cols: 17}
  - {rows: 1000, cols: 3}
  - {rows: 3, cols: 1000}
  - {rows: 130, cols: 260}
  - {rows: 1, cols: 1}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: normal}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch:
  grid: ["ceil_div(cols, TRANSPOSE_TILE_COLS)", "min(ceil_div(rows, TRANSPOSE_TILE_ROWS), 65535)", "ceil_div(ceil_div(rows, TRANSPOSE_TILE_ROWS), 65535)"]
  block: ["TRANSPOSE_THREADS"]
  shared_bytes: "0"
reference: transpose_naive
tolerance: {rtol: 0, atol: 0}
metrics: {bytes: "2*rows*cols*4"}
*/
// clang-format on

namespace transpose_detail {

// Cache hints for the data that passes through once. Loads (TRANSPOSE_LOAD_HINT): 0 the read-only
// path (ld.global.nc), 1 evict-first in L1 and L2 (ld.global.cs), 2 the read-only path with no
// L1 allocation and an L2 evict-first policy, 3 the coherent path cached in L1 and L2
// (ld.global.ca). Stores (TRANSPOSE_STORE_HINT): 0 plain, 1 evict-first
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
#if TRANSPOSE_LOAD_HINT == 1
  return __ldcs(p);
#elif TRANSPOSE_LOAD_HINT == 2
  return load_hinted(p);
#elif TRANSPOSE_LOAD_HINT == 3
  return __ldca(p);
#else
  return __ldg(p);
#endif
}
template <typename T>
__device__ __forceinline__ void store_once(T* p, const T& v) {
#if TRANSPOSE_STORE_HINT == 1
  __stcs(p, v);
#elif TRANSPOSE_STORE_HINT == 2
  store_hinted(p, v);
#else
  *p = v;
#endif
}

constexpr int kTileRows = TRANSPOSE_TILE_ROWS;
constexpr int kTileCols = TRANSPOSE_TILE_COLS;
constexpr int kThreads = TRANSPOSE_THREADS;
constexpr bool kSwizzle = TRANSPOSE_SWIZZLE != 0;
// The swizzle flips the low bits of the column with the row, staying inside the row.
constexpr int kSwizzleMask = kTileCols < 32 ? kTileCols - 1 : 31;
constexpr int kPitch = kSwizzle ? kTileCols : kTileCols + 1;
static_assert((kTileCols & (kTileCols - 1)) == 0, "TRANSPOSE_TILE_COLS must be a power of two");
static_assert(kTileRows % TRANSPOSE_VEC == 0 && kTileCols % TRANSPOSE_VEC == 0,
              "tile sides must be multiples of TRANSPOSE_VEC");

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

// Index of tile element (r, c) in shared memory.
__device__ __forceinline__ int slot(int r, int c) {
  return r * kPitch + (kSwizzle ? c ^ (r & kSwizzleMask) : c);
}

// One tile: rows [r0, r0 + kTileRows) and columns [c0, c0 + kTileCols) of x.
// VL: floats per load (cols % VL == 0), VS: floats per store (rows % VS == 0).
// A thread keeps one column of vectors and steps down the rows, so its addresses differ by
// a fixed stride.
template <int VL, int VS>
__device__ __forceinline__ void move_tile(const float* __restrict__ x, float* __restrict__ y,
                                          int rows, int cols, long long r0, int c0, float* tile) {
  using TL = typename Vec<VL>::type;
  using TS = typename Vec<VS>::type;
  // Loads: kThreads / kLoadsPerRow rows of the tile at a time (both are powers of two and
  // kThreads >= 64 >= kLoadsPerRow).
  constexpr int kLoadsPerRow = kTileCols / VL;
  constexpr int kLoadRowStep = kThreads / kLoadsPerRow;
  constexpr int kLoadSteps = (kTileRows + kLoadRowStep - 1) / kLoadRowStep;
  static_assert(kThreads % kLoadsPerRow == 0,
                "TRANSPOSE_THREADS must be a multiple of the loads per tile row");
  const int lr = threadIdx.x / kLoadsPerRow;
  const int lc = (threadIdx.x % kLoadsPerRow) * VL;
  // With VL > 1, cols % VL == 0, so a vector is either wholly inside or wholly outside.
  const bool load_col = c0 + lc < cols;
  const float* xp = x + (r0 + lr) * cols + c0 + lc;
  // All loads first, then the shared-memory stores, so they are in flight together.
  TL v[kLoadSteps];
#pragma unroll
  for (int k = 0; k < kLoadSteps; ++k) {
    const int tr = lr + k * kLoadRowStep;
    if ((kTileRows % kLoadRowStep == 0 || tr < kTileRows) && load_col && r0 + tr < rows)
      v[k] =
          load_once(reinterpret_cast<const TL*>(xp + static_cast<long long>(k) * kLoadRowStep * cols));
  }
#pragma unroll
  for (int k = 0; k < kLoadSteps; ++k) {
    const int tr = lr + k * kLoadRowStep;
    if ((kTileRows % kLoadRowStep == 0 || tr < kTileRows) && load_col && r0 + tr < rows) {
#pragma unroll
      for (int j = 0; j < VL; ++j) tile[slot(tr, lc + j)] = at<VL>(v[k], j);
    }
  }
  __syncthreads();

  // Stores: row sc of y's tile is column c0 + sc of x; a thread writes VS of its rows.
  constexpr int kStoresPerRow = kTileRows / VS;
  constexpr int kStoreRowStep = kThreads / kStoresPerRow;
  constexpr int kStoreSteps = (kTileCols + kStoreRowStep - 1) / kStoreRowStep;
  static_assert(kThreads % kStoresPerRow == 0,
                "TRANSPOSE_THREADS must be a multiple of the stores per tile column");
  const int sc = threadIdx.x / kStoresPerRow;
  const int sr = (threadIdx.x % kStoresPerRow) * VS;
  // With VS > 1, rows % VS == 0, so a vector is either wholly inside or wholly outside.
  const bool store_row = r0 + sr < rows;
  float* yp = y + static_cast<long long>(c0 + sc) * rows + r0 + sr;
#pragma unroll
  for (int k = 0; k < kStoreSteps; ++k) {
    const int tc = sc + k * kStoreRowStep;
    if ((kTileCols % kStoreRowStep == 0 || tc < kTileCols) && store_row && c0 + tc < cols) {
      TS out;
#pragma unroll
      for (int j = 0; j < VS; ++j) at<VS>(out, j) = tile[slot(sr + j, tc)];
      store_once(reinterpret_cast<TS*>(yp + static_cast<long long>(k) * kStoreRowStep * rows), out);
    }
  }
}

// The kernel's body, inlined into the kernel once for the run-time cols and, with
// KERNELEVO_SIZE_cols defined, once more with cols == KERNELEVO_SIZE_cols as a constant.
__device__ __forceinline__ void transpose_body(const float* __restrict__ x, float* __restrict__ y,
                                               int rows, int cols) {
  __shared__ float tile[kTileRows * kPitch];
  // Row tiles beyond the grid's y extent continue in z.
  const long long tile_row = static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y;
  if (tile_row * kTileRows >= rows) return;  // the whole block: before any barrier
  const long long r0 = tile_row * kTileRows;
  const int c0 = blockIdx.x * kTileCols;
  constexpr int V = TRANSPOSE_VEC;
  if constexpr (V > 1) {
    // Both conditions are the same for the whole grid, so no block diverges on them.
    const bool load_ok =
        cols % V == 0 && reinterpret_cast<unsigned long long>(x) % (V * sizeof(float)) == 0;
    const bool store_ok =
        rows % V == 0 && reinterpret_cast<unsigned long long>(y) % (V * sizeof(float)) == 0;
    if (load_ok && store_ok) {
      move_tile<V, V>(x, y, rows, cols, r0, c0, tile);
    } else if (load_ok) {
      move_tile<V, 1>(x, y, rows, cols, r0, c0, tile);
    } else if (store_ok) {
      move_tile<1, V>(x, y, rows, cols, r0, c0, tile);
    } else {
      move_tile<1, 1>(x, y, rows, cols, r0, c0, tile);
    }
  } else {
    move_tile<1, 1>(x, y, rows, cols, r0, c0, tile);
  }
}

}  // namespace transpose_detail

extern "C" __global__ void __launch_bounds__(TRANSPOSE_THREADS)
    transpose(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
#ifdef KERNELEVO_SIZE_cols
  if (cols == KERNELEVO_SIZE_cols) {
    transpose_detail::transpose_body(x, y, rows, KERNELEVO_SIZE_cols);
    return;
  }
#endif
  transpose_detail::transpose_body(x, y, rows, cols);
}

// The reference: one thread per element of y, any launch geometry.
extern "C" __global__ void transpose_naive(const float* __restrict__ x, float* __restrict__ y,
                                           int rows, int cols) {
  const long long n = static_cast<long long>(rows) * cols;
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z * blockDim.x;
  const long long block =
      (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  for (long long i = block * blockDim.x + threadIdx.x; i < n; i += threads) {
    const long long c = i / rows;
    const long long r = i % rows;
    y[i] = x[r * cols + c];
  }
}
