// Tensor-core GEMM, row-major, fp16 or bf16 inputs, fp32 accumulation and output:
// C[M, N] = A[M, K] * B[K, N].
// A block computes a BM x BN tile of C with (BM / WM) x (BN / WN) warps, each owning a
// WM x WN tile made of 16x8 mma.sync.m16n8k16 tiles. K is walked in BK steps through a
// STAGES-deep ring of shared-memory tiles filled with cp.async, so STAGES - 1 steps are in
// flight while one is multiplied. Fragments come from shared memory by ldmatrix (B
// transposed on the way). Shared rows are either padded by 16 bytes or XOR-swizzled in
// 16-byte chunks (SWIZZLE), both of which keep ldmatrix free of bank conflicts.
// cp.async needs 16-byte aligned rows: when K or N is not a multiple of 8 (or a pointer is
// not 16-byte aligned) tiles are loaded element by element instead. Tiles past the edges
// of the matrices are zero-filled and their stores skipped, so every configuration is
// correct for every shape.
// Two kernels, one per input type, each with its own parameters: gemm_tc_f16 (GEMM_F16_*)
// and gemm_tc_bf16 (GEMM_BF16_*). Needs sm_80 or newer (cp.async, bf16 mma).
// The shared tiles are dynamic shared memory (launch.shared_bytes). Above 48 KiB a launch
// needs cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)
// first; kernelevo does that itself while tuning.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef GEMM_F16_BM
#define GEMM_F16_BM 128
#endif
#ifndef GEMM_F16_BN
#define GEMM_F16_BN 128
#endif
#ifndef GEMM_F16_BK
#define GEMM_F16_BK 32
#endif
#ifndef GEMM_F16_WM
#define GEMM_F16_WM 64
#endif
#ifndef GEMM_F16_WN
#define GEMM_F16_WN 64
#endif
#ifndef GEMM_F16_STAGES
#define GEMM_F16_STAGES 3
#endif
#ifndef GEMM_F16_SWIZZLE
#define GEMM_F16_SWIZZLE 1
#endif
#ifndef GEMM_BF16_BM
#define GEMM_BF16_BM 128
#endif
#ifndef GEMM_BF16_BN
#define GEMM_BF16_BN 128
#endif
#ifndef GEMM_BF16_BK
#define GEMM_BF16_BK 32
#endif
#ifndef GEMM_BF16_WM
#define GEMM_BF16_WM 64
#endif
#ifndef GEMM_BF16_WN
#define GEMM_BF16_WN 64
#endif
#ifndef GEMM_BF16_STAGES
#define GEMM_BF16_STAGES 3
#endif
#ifndef GEMM_BF16_SWIZZLE
#define GEMM_BF16_SWIZZLE 1
#endif

extern __shared__ __align__(128) unsigned char gemm_tc_smem[];

namespace gemm_tc_detail {

template <int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, bool SWIZZLE_>
struct Config {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr bool SWIZZLE = SWIZZLE_;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kMTiles = WM / 16;  // mma tiles per warp
  static constexpr int kNTiles = WN / 8;
  static constexpr int kAChunksPerRow = BK / 8;  // 16-byte chunks
  static constexpr int kBChunksPerRow = BN / 8;
  static constexpr int kPad = SWIZZLE ? 0 : 1;  // chunks of padding per row
  static constexpr int kAStageBytes = BM * (kAChunksPerRow + kPad) * 16;
  static constexpr int kBStageBytes = BK * (kBChunksPerRow + kPad) * 16;
  static constexpr int kAChunks = BM * kAChunksPerRow;
  static constexpr int kBChunks = BK * kBChunksPerRow;
  static_assert(BM % WM == 0 && BN % WN == 0, "BM and BN must be multiples of WM and WN");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "WM and WN must be multiples of 16");
  static_assert(BK % 16 == 0, "BK must be a multiple of 16");
  static_assert(STAGES >= 2, "at least two stages");
  static_assert(kThreads <= 1024, "too many warps per block");
};

// Byte offset of 16-byte chunk c of row r in a tile of kRowChunks chunks per row.
// Swizzled: the chunk's position within its 128-byte line is XORed with the line's row
// group, so the eight rows one ldmatrix phase reads land on distinct banks. Padded: rows
// are kRowChunks + 1 chunks apart, which does the same since kRowChunks + 1 is odd.
template <int kRowChunks, bool kSwizzle>
__device__ __forceinline__ unsigned chunk_offset(int r, int c) {
  if constexpr (kSwizzle) {
    const int linear = r * kRowChunks + c;
    if constexpr (kRowChunks >= 8) {
      return static_cast<unsigned>(linear ^ (r & 7)) * 16u;
    } else {
      return static_cast<unsigned>(linear ^ ((r / (8 / kRowChunks)) & 7)) * 16u;
    }
  } else {
    return static_cast<unsigned>(r * (kRowChunks + 1) + c) * 16u;
  }
}

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Copies 16 bytes, or writes 16 zero bytes when `valid` is false (src is not read then).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

template <bool kBf16>
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  if constexpr (kBf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Eight 16-bit elements src[0..n) (zeros past n) written to shared memory as one chunk.
__device__ __forceinline__ void copy_chunk_checked(unsigned char* dst, const unsigned short* src,
                                                   int n) {
  unsigned short v[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) v[e] = e < n ? src[e] : static_cast<unsigned short>(0);
  uint4 packed;
  packed.x = v[0] | (static_cast<unsigned>(v[1]) << 16);
  packed.y = v[2] | (static_cast<unsigned>(v[3]) << 16);
  packed.z = v[4] | (static_cast<unsigned>(v[5]) << 16);
  packed.w = v[6] | (static_cast<unsigned>(v[7]) << 16);
  *reinterpret_cast<uint4*>(dst) = packed;
}

// Starts loading step k0's tiles into one stage: A[m0.., k0..] and B[k0.., n0..].
template <class Cfg>
__device__ __forceinline__ void load_stage(unsigned char* a_stage, unsigned char* b_stage,
                                           const unsigned short* __restrict__ A,
                                           const unsigned short* __restrict__ B, int M, int N,
                                           int K, int m0, int n0, int k0, bool async) {
  constexpr int kALoads = (Cfg::kAChunks + Cfg::kThreads - 1) / Cfg::kThreads;
  constexpr int kBLoads = (Cfg::kBChunks + Cfg::kThreads - 1) / Cfg::kThreads;
#pragma unroll
  for (int p = 0; p < kALoads; ++p) {
    const int i = threadIdx.x + p * Cfg::kThreads;
    if (Cfg::kAChunks % Cfg::kThreads == 0 || i < Cfg::kAChunks) {
      const int r = i / Cfg::kAChunksPerRow;
      const int c = i % Cfg::kAChunksPerRow;
      const int m = m0 + r;
      const int k = k0 + c * 8;
      unsigned char* dst = a_stage + chunk_offset<Cfg::kAChunksPerRow, Cfg::SWIZZLE>(r, c);
      const unsigned short* src = A + static_cast<long long>(m) * K + k;
      if (async) {
        const bool valid = m < M && k < K;  // K % 8 == 0 here: a chunk is all in or all out
        cp_async_16(shared_address(dst), valid ? src : A, valid);
      } else {
        copy_chunk_checked(dst, src, m < M ? K - k : 0);
      }
    }
  }
#pragma unroll
  for (int p = 0; p < kBLoads; ++p) {
    const int i = threadIdx.x + p * Cfg::kThreads;
    if (Cfg::kBChunks % Cfg::kThreads == 0 || i < Cfg::kBChunks) {
      const int r = i / Cfg::kBChunksPerRow;
      const int c = i % Cfg::kBChunksPerRow;
      const int k = k0 + r;
      const int n = n0 + c * 8;
      unsigned char* dst = b_stage + chunk_offset<Cfg::kBChunksPerRow, Cfg::SWIZZLE>(r, c);
      const unsigned short* src = B + static_cast<long long>(k) * N + n;
      if (async) {
        const bool valid = k < K && n < N;
        cp_async_16(shared_address(dst), valid ? src : B, valid);
      } else {
        copy_chunk_checked(dst, src, k < K ? N - n : 0);
      }
    }
  }
}

template <class Cfg, bool kBf16>
__device__ __forceinline__ void multiply_stage(float (&acc)[Cfg::kMTiles][Cfg::kNTiles][4],
                                               const unsigned char* a_stage,
                                               const unsigned char* b_stage, int wm, int wn) {
  const int lane = threadIdx.x % 32;
  // ldmatrix x4: lanes 0-15 address rows 0-15 of the first 8 columns, lanes 16-31 the
  // next 8; for A that yields a0..a3 of m16n8k16, for B (transposed) b0, b1 of two n tiles.
  const int row_in_tile = lane % 16;
  const int chunk_in_tile = lane / 16;
#pragma unroll
  for (int kk = 0; kk < Cfg::BK / 16; ++kk) {
    unsigned a[Cfg::kMTiles][4];
    unsigned b[Cfg::kNTiles / 2][4];
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) {
      const int r = wm + i * 16 + row_in_tile;
      ldmatrix_x4(a[i], shared_address(a_stage + chunk_offset<Cfg::kAChunksPerRow, Cfg::SWIZZLE>(
                                                     r, kk * 2 + chunk_in_tile)));
    }
#pragma unroll
    for (int j = 0; j < Cfg::kNTiles / 2; ++j) {
      const int r = kk * 16 + row_in_tile;
      const int c = (wn + j * 16) / 8 + chunk_in_tile;
      ldmatrix_x4_trans(
          b[j], shared_address(b_stage + chunk_offset<Cfg::kBChunksPerRow, Cfg::SWIZZLE>(r, c)));
    }
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) {
#pragma unroll
      for (int j = 0; j < Cfg::kNTiles; ++j) {
        mma_16816<kBf16>(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
      }
    }
  }
}

template <class Cfg, bool kBf16>
__device__ __forceinline__ void gemm_tc(const unsigned short* __restrict__ A,
                                        const unsigned short* __restrict__ B, float* __restrict__ C,
                                        int M, int N, int K) {
  unsigned char* a_smem = gemm_tc_smem;
  unsigned char* b_smem = gemm_tc_smem + Cfg::STAGES * Cfg::kAStageBytes;
  const int m0 = blockIdx.y * Cfg::BM;
  const int n0 = blockIdx.x * Cfg::BN;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int wm = (warp / Cfg::kWarpsN) * Cfg::WM;
  const int wn = (warp % Cfg::kWarpsN) * Cfg::WN;
  // Uniform over the grid, so the copy path never diverges.
  const unsigned long long addresses =
      reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B);
  const bool async = K % 8 == 0 && N % 8 == 0 && addresses % 16 == 0;

  float acc[Cfg::kMTiles][Cfg::kNTiles][4];
#pragma unroll
  for (int i = 0; i < Cfg::kMTiles; ++i) {
#pragma unroll
    for (int j = 0; j < Cfg::kNTiles; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
    }
  }

  const int steps = (K + Cfg::BK - 1) / Cfg::BK;
#pragma unroll
  for (int s = 0; s < Cfg::STAGES - 1; ++s) {
    if (s < steps) {
      load_stage<Cfg>(a_smem + s * Cfg::kAStageBytes, b_smem + s * Cfg::kBStageBytes, A, B, M, N, K,
                      m0, n0, s * Cfg::BK, async);
    }
    cp_async_commit();
  }
  int read_stage = 0;
  int write_stage = Cfg::STAGES - 1;
  for (int t = 0; t < steps; ++t) {
    // Step t's group is complete; the barrier also ends every warp's reads of the stage
    // about to be refilled (it was multiplied in step t - 1).
    cp_async_wait<Cfg::STAGES - 2>();
    __syncthreads();
    const int next = t + Cfg::STAGES - 1;
    if (next < steps) {
      load_stage<Cfg>(a_smem + write_stage * Cfg::kAStageBytes,
                      b_smem + write_stage * Cfg::kBStageBytes, A, B, M, N, K, m0, n0,
                      next * Cfg::BK, async);
    }
    cp_async_commit();
    multiply_stage<Cfg, kBf16>(acc, a_smem + read_stage * Cfg::kAStageBytes,
                               b_smem + read_stage * Cfg::kBStageBytes, wm, wn);
    read_stage = read_stage + 1 == Cfg::STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == Cfg::STAGES ? 0 : write_stage + 1;
  }
  cp_async_wait<0>();

  // Accumulator layout of m16n8: c0, c1 at row lane / 4, columns 2 * (lane % 4) + {0, 1};
  // c2, c3 eight rows below.
  const bool pairs = N % 2 == 0 && reinterpret_cast<unsigned long long>(C) % 8 == 0;
#pragma unroll
  for (int i = 0; i < Cfg::kMTiles; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m0 + wm + i * 16 + lane / 4 + h * 8;
      if (m >= M) continue;
      float* row = C + static_cast<long long>(m) * N;
#pragma unroll
      for (int j = 0; j < Cfg::kNTiles; ++j) {
        const int n = n0 + wn + j * 8 + (lane % 4) * 2;
        const float v0 = acc[i][j][h * 2];
        const float v1 = acc[i][j][h * 2 + 1];
        if (pairs && n + 1 < N) {
          *reinterpret_cast<float2*>(row + n) = make_float2(v0, v1);
        } else {
          if (n < N) row[n] = v0;
          if (n + 1 < N) row[n + 1] = v1;
        }
      }
    }
  }
}

// The reference: one thread per element of C, double accumulation, any launch geometry.
template <class T>
__device__ __forceinline__ void gemm_naive(const T* __restrict__ A, const T* __restrict__ B,
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
    for (int k = 0; k < K; ++k) {
      s += static_cast<double>(static_cast<float>(A[m * K + k])) * static_cast<float>(B[k * N + n]);
    }
    C[e] = static_cast<float>(s);
  }
}

}  // namespace gemm_tc_detail

using GemmF16Config = gemm_tc_detail::Config<GEMM_F16_BM, GEMM_F16_BN, GEMM_F16_BK, GEMM_F16_WM,
                                             GEMM_F16_WN, GEMM_F16_STAGES, GEMM_F16_SWIZZLE != 0>;
using GemmBf16Config =
    gemm_tc_detail::Config<GEMM_BF16_BM, GEMM_BF16_BN, GEMM_BF16_BK, GEMM_BF16_WM, GEMM_BF16_WN,
                           GEMM_BF16_STAGES, GEMM_BF16_SWIZZLE != 0>;

// clang-format off
/* @kernelevo
id: gemm_tc_f16
kernel: gemm_tc_f16
params:
  GEMM_F16_BM: [32, 64, 128, 256]
  GEMM_F16_BN: [32, 64, 128, 256]
  GEMM_F16_BK: [16, 32, 64]
  GEMM_F16_WM: [16, 32, 64, 128]
  GEMM_F16_WN: [16, 32, 64, 128]
  GEMM_F16_STAGES: [2, 3, 4, 5]
  GEMM_F16_SWIZZLE: [0, 1]
constraints:
  - "GEMM_F16_BM % GEMM_F16_WM == 0"
  - "GEMM_F16_BN % GEMM_F16_WN == 0"
  - "GEMM_F16_BM / GEMM_F16_WM * (GEMM_F16_BN / GEMM_F16_WN) <= 16"
  - "GEMM_F16_WM * GEMM_F16_WN <= 4096"
  - "GEMM_F16_BM * GEMM_F16_BN <= 32768"
  - "GEMM_F16_STAGES * (GEMM_F16_BM * (GEMM_F16_BK + 8 - 8 * GEMM_F16_SWIZZLE) + GEMM_F16_BK * (GEMM_F16_BN + 8 - 8 * GEMM_F16_SWIZZLE)) * 2 <= 160 * 1024"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
args:
  - {name: A, type: "const half*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const half*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: C, type: "float*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
launch:
  grid: ["ceil_div(N, GEMM_F16_BN)", "ceil_div(M, GEMM_F16_BM)"]
  block: ["GEMM_F16_BM / GEMM_F16_WM * (GEMM_F16_BN / GEMM_F16_WN) * 32"]
  shared_bytes: "GEMM_F16_STAGES * (GEMM_F16_BM * (GEMM_F16_BK + 8 - 8 * GEMM_F16_SWIZZLE) + GEMM_F16_BK * (GEMM_F16_BN + 8 - 8 * GEMM_F16_SWIZZLE)) * 2"
reference: gemm_tc_f16_naive
tolerance: {rtol: 1e-3, atol: 5e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N)*2 + M*N*4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(GemmF16Config::kThreads)
    gemm_tc_f16(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
  gemm_tc_detail::gemm_tc<GemmF16Config, false>(reinterpret_cast<const unsigned short*>(A),
                                                reinterpret_cast<const unsigned short*>(B), C, M, N,
                                                K);
}

// clang-format off
/* @kernelevo
id: gemm_tc_bf16
kernel: gemm_tc_bf16
params:
  GEMM_BF16_BM: [32, 64, 128, 256]
  GEMM_BF16_BN: [32, 64, 128, 256]
  GEMM_BF16_BK: [16, 32, 64]
  GEMM_BF16_WM: [16, 32, 64, 128]
  GEMM_BF16_WN: [16, 32, 64, 128]
  GEMM_BF16_STAGES: [2, 3, 4, 5]
  GEMM_BF16_SWIZZLE: [0, 1]
constraints:
  - "GEMM_BF16_BM % GEMM_BF16_WM == 0"
  - "GEMM_BF16_BN % GEMM_BF16_WN == 0"
  - "GEMM_BF16_BM / GEMM_BF16_WM * (GEMM_BF16_BN / GEMM_BF16_WN) <= 16"
  - "GEMM_BF16_WM * GEMM_BF16_WN <= 4096"
  - "GEMM_BF16_BM * GEMM_BF16_BN <= 32768"
  - "GEMM_BF16_STAGES * (GEMM_BF16_BM * (GEMM_BF16_BK + 8 - 8 * GEMM_BF16_SWIZZLE) + GEMM_BF16_BK * (GEMM_BF16_BN + 8 - 8 * GEMM_BF16_SWIZZLE)) * 2 <= 160 * 1024"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
args:
  - {name: A, type: "const bfloat16*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const bfloat16*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: C, type: "float*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
launch:
  grid: ["ceil_div(N, GEMM_BF16_BN)", "ceil_div(M, GEMM_BF16_BM)"]
  block: ["GEMM_BF16_BM / GEMM_BF16_WM * (GEMM_BF16_BN / GEMM_BF16_WN) * 32"]
  shared_bytes: "GEMM_BF16_STAGES * (GEMM_BF16_BM * (GEMM_BF16_BK + 8 - 8 * GEMM_BF16_SWIZZLE) + GEMM_BF16_BK * (GEMM_BF16_BN + 8 - 8 * GEMM_BF16_SWIZZLE)) * 2"
reference: gemm_tc_bf16_naive
tolerance: {rtol: 1e-3, atol: 5e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N)*2 + M*N*4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(GemmBf16Config::kThreads)
    gemm_tc_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                 float* __restrict__ C, int M, int N, int K) {
  gemm_tc_detail::gemm_tc<GemmBf16Config, true>(reinterpret_cast<const unsigned short*>(A),
                                                reinterpret_cast<const unsigned short*>(B), C, M, N,
                                                K);
}

extern "C" __global__ void gemm_tc_f16_naive(const __half* __restrict__ A,
                                             const __half* __restrict__ B, float* __restrict__ C,
                                             int M, int N, int K) {
  gemm_tc_detail::gemm_naive(A, B, C, M, N, K);
}

extern "C" __global__ void gemm_tc_bf16_naive(const __nv_bfloat16* __restrict__ A,
                                              const __nv_bfloat16* __restrict__ B,
                                              float* __restrict__ C, int M, int N, int K) {
  gemm_tc_detail::gemm_naive(A, B, C, M, N, K);
}
