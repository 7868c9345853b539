// SGEMM, fp32, row-major: C[M, N] = A[M, K] * B[K, N].
// A block computes a SGEMM_BM x SGEMM_BN tile of C, stepping through K by SGEMM_BK. Each
// step stages A's tile transposed (As[k][m]) and B's tile as is (Bs[k][n]) in shared
// memory, so both are read along m and n with vector loads. A warp's lanes form a
// SGEMM_LANES_M x (32 / SGEMM_LANES_M) grid; each thread accumulates a SGEMM_TM x SGEMM_TN
// tile in registers, split into sub-tiles of up to 4 rows and columns placed one warp-width
// apart, so a warp's shared-memory reads of one k hit distinct banks or broadcast.
// With SGEMM_DBUF the next step's global loads are in flight while the current step
// computes (two shared buffers, one barrier per step). Global loads use SGEMM_VEC-wide
// vectors where K, N and the pointers allow them and scalar loads otherwise; tiles past the
// edges of the matrices are zero-filled and their stores skipped, so every configuration is
// correct for every shape.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SGEMM_BM
#define SGEMM_BM 128
#endif
#ifndef SGEMM_BN
#define SGEMM_BN 128
#endif
#ifndef SGEMM_BK
#define SGEMM_BK 8
#endif
#ifndef SGEMM_TM
#define SGEMM_TM 8
#endif
#ifndef SGEMM_TN
#define SGEMM_TN 8
#endif
#ifndef SGEMM_LANES_M
#define SGEMM_LANES_M 4
#endif
#ifndef SGEMM_VEC
#define SGEMM_VEC 4
#endif
#ifndef SGEMM_PAD
#define SGEMM_PAD 4
#endif
#ifndef SGEMM_DBUF
#define SGEMM_DBUF 1
#endif
#ifndef SGEMM_MIN_BLOCKS
#define SGEMM_MIN_BLOCKS 2
#endif

// clang-format off
/* @kernelevo
id: sgemm
kernel: sgemm
params:
  SGEMM_BM: [32, 64, 128, 256]
  SGEMM_BN: [32, 64, 128, 256]
  SGEMM_BK: [8, 16, 32]
  SGEMM_TM: [2, 4, 8, 16]
  SGEMM_TN: [2, 4, 8, 16]
  SGEMM_LANES_M: [1, 2, 4, 8, 16, 32]
  SGEMM_VEC: [1, 2, 4]
  SGEMM_PAD: [0, 4]
  SGEMM_DBUF: [0, 1]
  SGEMM_MIN_BLOCKS: [1, 2]
constraints:
  - "SGEMM_BM % (SGEMM_LANES_M * SGEMM_TM) == 0"
  - "SGEMM_BN % (32 / SGEMM_LANES_M * SGEMM_TN) == 0"
  - "SGEMM_BM * SGEMM_BN / (SGEMM_TM * SGEMM_TN) <= 1024"
  - "SGEMM_TM * SGEMM_TN >= 8 && SGEMM_TM * SGEMM_TN <= 128"
  - "SGEMM_BM * SGEMM_BN <= 32768"
  - "(SGEMM_BM + SGEMM_BN) * SGEMM_BK * SGEMM_TM * SGEMM_TN <= 16 * SGEMM_BM * SGEMM_BN"
  - "SGEMM_MIN_BLOCKS * (SGEMM_BM * SGEMM_BN / (SGEMM_TM * SGEMM_TN) * (SGEMM_TM * SGEMM_TN + SGEMM_TM + SGEMM_TN + 32) + 2 * (SGEMM_BM + SGEMM_BN) * SGEMM_BK) <= 65536"
  - "(1 + SGEMM_DBUF) * SGEMM_BK * (SGEMM_BM + SGEMM_PAD + SGEMM_BN) * 4 <= 48 * 1024"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 130, K: 258}
  - {M: 3, N: 1000, K: 5}
  - {M: 300, N: 36, K: 1024}
args:
  - {name: A, type: "const float*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const float*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: C, type: "float*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
launch:
  grid: ["ceil_div(N, SGEMM_BN)", "ceil_div(M, SGEMM_BM)"]
  block: ["SGEMM_BM * SGEMM_BN / (SGEMM_TM * SGEMM_TN)"]
  shared_bytes: "0"
reference: sgemm_naive
tolerance: {rtol: 1e-4, atol: 1e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N + M*N)*4"}
*/
// clang-format on

namespace sgemm_detail {

constexpr int kBM = SGEMM_BM;
constexpr int kBN = SGEMM_BN;
constexpr int kBK = SGEMM_BK;
constexpr int kTM = SGEMM_TM;
constexpr int kTN = SGEMM_TN;
constexpr int kLanesM = SGEMM_LANES_M;
constexpr int kLanesN = 32 / kLanesM;
constexpr int kVec = SGEMM_VEC;
constexpr int kStages = SGEMM_DBUF ? 2 : 1;
constexpr int kWM = kLanesM * kTM;  // a warp's tile
constexpr int kWN = kLanesN * kTN;
constexpr int kWarpsN = kBN / kWN;
constexpr int kThreads = (kBM / kWM) * kWarpsN * 32;
// A thread's tile is read from shared memory in sub-tiles of kRM x kRN (one vector each).
constexpr int kRM = kTM < 4 ? kTM : 4;
constexpr int kRN = kTN < 4 ? kTN : 4;
constexpr int kAStride = kBM + SGEMM_PAD;  // As[k][m]; the padding spreads transposed stores
constexpr int kAVecs = kBM * kBK / kVec;   // vector loads per tile
constexpr int kBVecs = kBK * kBN / kVec;
constexpr int kALoads = (kAVecs + kThreads - 1) / kThreads;  // per thread
constexpr int kBLoads = (kBVecs + kThreads - 1) / kThreads;

static_assert(32 % kLanesM == 0, "SGEMM_LANES_M must divide 32");
static_assert(kBM % kWM == 0 && kBN % kWN == 0,
              "SGEMM_BM and SGEMM_BN must be multiples of the warp tile");
static_assert(kThreads <= 1024, "too many threads per block");
static_assert(kTM % kRM == 0 && kTN % kRN == 0,
              "SGEMM_TM and SGEMM_TN must be 1, 2 or multiples of 4");
static_assert(kBK % kVec == 0 && kBN % kVec == 0, "SGEMM_VEC must divide SGEMM_BK and SGEMM_BN");
static_assert(SGEMM_PAD % 4 == 0, "SGEMM_PAD must keep rows 16-byte aligned");

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
__device__ __forceinline__ void load_vec(float* dst, const float* src) {
  const auto v = *reinterpret_cast<const typename Vec<V>::type*>(src);
#pragma unroll
  for (int i = 0; i < V; ++i) dst[i] = reinterpret_cast<const float*>(&v)[i];
}

template <int V>
__device__ __forceinline__ void store_vec(float* dst, const float* src) {
  typename Vec<V>::type v;
#pragma unroll
  for (int i = 0; i < V; ++i) reinterpret_cast<float*>(&v)[i] = src[i];
  *reinterpret_cast<typename Vec<V>::type*>(dst) = v;
}

__device__ __forceinline__ bool aligned(const void* p, int bytes) {
  return reinterpret_cast<unsigned long long>(p) % bytes == 0;
}

struct Staging {
  float a[kALoads][kVec];
  float b[kBLoads][kVec];
};

// Loads the tile starting at k0 into registers: A's rows m0.., B's columns n0...
__device__ __forceinline__ void load_tiles(Staging& s, const float* __restrict__ A,
                                           const float* __restrict__ B, int M, int N, int K, int m0,
                                           int n0, int k0, bool vec_a, bool vec_b) {
#pragma unroll
  for (int p = 0; p < kALoads; ++p) {
    const int i = threadIdx.x + p * kThreads;
    if (kAVecs % kThreads == 0 || i < kAVecs) {
      const int m = m0 + i / (kBK / kVec);
      const int k = k0 + (i % (kBK / kVec)) * kVec;
      const float* src = A + static_cast<long long>(m) * K + k;
      if (vec_a && m < M && k + kVec <= K) {
        load_vec<kVec>(s.a[p], src);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v) s.a[p][v] = (m < M && k + v < K) ? src[v] : 0.f;
      }
    }
  }
#pragma unroll
  for (int p = 0; p < kBLoads; ++p) {
    const int i = threadIdx.x + p * kThreads;
    if (kBVecs % kThreads == 0 || i < kBVecs) {
      const int k = k0 + i / (kBN / kVec);
      const int n = n0 + (i % (kBN / kVec)) * kVec;
      const float* src = B + static_cast<long long>(k) * N + n;
      if (vec_b && k < K && n + kVec <= N) {
        load_vec<kVec>(s.b[p], src);
      } else {
#pragma unroll
        for (int v = 0; v < kVec; ++v) s.b[p][v] = (k < K && n + v < N) ? src[v] : 0.f;
      }
    }
  }
}

__device__ __forceinline__ void store_tiles(const Staging& s, float* As, float* Bs) {
#pragma unroll
  for (int p = 0; p < kALoads; ++p) {
    const int i = threadIdx.x + p * kThreads;
    if (kAVecs % kThreads == 0 || i < kAVecs) {
      const int m = i / (kBK / kVec);
      const int k = (i % (kBK / kVec)) * kVec;
#pragma unroll
      for (int v = 0; v < kVec; ++v) As[(k + v) * kAStride + m] = s.a[p][v];
    }
  }
#pragma unroll
  for (int p = 0; p < kBLoads; ++p) {
    const int i = threadIdx.x + p * kThreads;
    if (kBVecs % kThreads == 0 || i < kBVecs) {
      const int k = i / (kBN / kVec);
      const int n = (i % (kBN / kVec)) * kVec;
      store_vec<kVec>(Bs + k * kBN + n, s.b[p]);
    }
  }
}

// As and Bs point at this thread's first sub-tile column of the stage.
__device__ __forceinline__ void multiply_tile(float (&acc)[kTM][kTN], const float* As,
                                              const float* Bs) {
#pragma unroll
  for (int k = 0; k < kBK; ++k) {
    float a[kTM];
    float b[kTN];
#pragma unroll
    for (int g = 0; g < kTM / kRM; ++g)
      load_vec<kRM>(a + g * kRM, As + k * kAStride + g * kLanesM * kRM);
#pragma unroll
    for (int g = 0; g < kTN / kRN; ++g)
      load_vec<kRN>(b + g * kRN, Bs + k * kBN + g * kLanesN * kRN);
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
}

}  // namespace sgemm_detail

extern "C" __global__ void __launch_bounds__(sgemm_detail::kThreads, SGEMM_MIN_BLOCKS)
    sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
          int N, int K) {
  using namespace sgemm_detail;
  __shared__ __align__(16) float As[kStages][kBK * kAStride];
  __shared__ __align__(16) float Bs[kStages][kBK * kBN];

  const int m0 = blockIdx.y * kBM;
  const int n0 = blockIdx.x * kBN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int tm = (warp / kWarpsN) * kWM + (lane / kLanesN) * kRM;  // first row of the thread
  const int tn = (warp % kWarpsN) * kWN + (lane % kLanesN) * kRN;  // first column
  // Uniform over the grid, so the vector/scalar choice never diverges within a warp.
  const bool vec_a = kVec > 1 && K % kVec == 0 && aligned(A, kVec * 4);
  const bool vec_b = kVec > 1 && N % kVec == 0 && aligned(B, kVec * 4);

  float acc[kTM][kTN];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.f;
  }

  Staging staged;
  const int tiles = (K + kBK - 1) / kBK;
  if constexpr (kStages == 2) {
    load_tiles(staged, A, B, M, N, K, m0, n0, 0, vec_a, vec_b);
    store_tiles(staged, As[0], Bs[0]);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
      const int cur = t & 1;
      const bool more = t + 1 < tiles;
      if (more) load_tiles(staged, A, B, M, N, K, m0, n0, (t + 1) * kBK, vec_a, vec_b);
      multiply_tile(acc, As[cur] + tm, Bs[cur] + tn);
      // The other buffer was last read before the previous barrier.
      if (more) store_tiles(staged, As[cur ^ 1], Bs[cur ^ 1]);
      __syncthreads();
    }
  } else {
    for (int t = 0; t < tiles; ++t) {
      load_tiles(staged, A, B, M, N, K, m0, n0, t * kBK, vec_a, vec_b);
      store_tiles(staged, As[0], Bs[0]);
      __syncthreads();
      multiply_tile(acc, As[0] + tm, Bs[0] + tn);
      __syncthreads();
    }
  }

  const bool vec_c = kRN > 1 && N % kRN == 0 && aligned(C, kRN * 4);
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int m = m0 + tm + (i / kRM) * kLanesM * kRM + i % kRM;
    if (m >= M) continue;
    float* row = C + static_cast<long long>(m) * N;
#pragma unroll
    for (int g = 0; g < kTN / kRN; ++g) {
      const int n = n0 + tn + g * kLanesN * kRN;
      const float* vals = &acc[i][g * kRN];
      if (vec_c && n + kRN <= N) {
        store_vec<kRN>(row + n, vals);
      } else {
#pragma unroll
        for (int v = 0; v < kRN; ++v) {
          if (n + v < N) row[n + v] = vals[v];
        }
      }
    }
  }
}

// The reference: one thread per element of C, double accumulation, any launch geometry.
extern "C" __global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K) {
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z * blockDim.x *
                            blockDim.y * blockDim.z;
  const long long block =
      (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const long long first = block * blockDim.x * blockDim.y * blockDim.z +
                          (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  for (long long e = first; e < static_cast<long long>(M) * N; e += threads) {
    const long long m = e / N;
    const long long n = e % N;
    double s = 0.0;
    for (int k = 0; k < K; ++k) s += static_cast<double>(A[m * K + k]) * B[k * N + n];
    C[e] = static_cast<float>(s);
  }
}
