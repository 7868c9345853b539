// Tensor-core GEMM for Hopper (sm_90a), row-major, fp16 or bf16 inputs, fp32 accumulation
// and output: C[M, N] = A[M, K] * B[K, N], with wgmma (warpgroup MMA).
// The kernel computes C^T = B^T * A^T: a BM x BN tile of C is WG warpgroups, each the
// 64 x BM product of 64 rows of B^T (registers, by ldmatrix from B's shared tile,
// transposed on the way) and A^T, whose shared tile wgmma reads directly: A's rows are
// K-contiguous, the layout wgmma takes for its shared operand, stored in 128-byte rows
// with the 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)). K is walked
// in steps of 64 (one swizzled row) through a STAGES-deep ring filled with cp.async.
// When K or N is not a multiple of 8 (or a pointer is not 16-byte aligned) tiles are
// loaded element by element instead; tiles past the edges are zero-filled and their
// stores skipped, so every configuration is correct for every shape.
// Two kernels, one per input type, each with its own parameters: gemm_wgmma_f16
// (GEMM_WG_F16_*) and gemm_wgmma_bf16 (GEMM_WG_BF16_*). Needs sm_90a (the spec says so).
// The shared tiles are dynamic shared memory (launch.shared_bytes, 1 KiB of it for
// alignment); above 48 KiB a launch needs cudaFuncSetAttribute(kernel,
// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first, which kernelevo does itself
// while tuning.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "gemm_wgmma.cu uses wgmma: compile it for sm_90a (CMAKE_CUDA_ARCHITECTURES 90a, nvcc -arch=sm_90a)"
#endif
#ifndef GEMM_WG_F16_BM
#define GEMM_WG_F16_BM 128
#endif
#ifndef GEMM_WG_F16_WG
#define GEMM_WG_F16_WG 2
#endif
#ifndef GEMM_WG_F16_STAGES
#define GEMM_WG_F16_STAGES 3
#endif
#ifndef GEMM_WG_BF16_BM
#define GEMM_WG_BF16_BM 128
#endif
#ifndef GEMM_WG_BF16_WG
#define GEMM_WG_BF16_WG 2
#endif
#ifndef GEMM_WG_BF16_STAGES
#define GEMM_WG_BF16_STAGES 3
#endif

extern __shared__ __align__(1024) unsigned char gemm_wgmma_smem[];

namespace gemm_wgmma_detail {

constexpr int kBK = 64;  // one 128-byte swizzled row of 16-bit elements

template <int BM_, int WG_, int STAGES_>
struct Config {
  static constexpr int BM = BM_, WG = WG_, STAGES = STAGES_;
  static constexpr int BN = 64 * WG;
  static constexpr int kThreads = 128 * WG;
  static constexpr int kAStageBytes = BM * 128;              // BM rows of 64 elements, swizzled
  static constexpr int kBRowChunks = BN / 8 + 1;             // 16-byte chunks, one of padding
  static constexpr int kBStageBytes = kBK * kBRowChunks * 16;
  static constexpr int kAChunks = BM * 8;
  static constexpr int kBChunks = kBK * (BN / 8);
  static_assert(BM == 64 || BM == 128 || BM == 256, "BM is the wgmma N: 64, 128 or 256");
  static_assert(WG == 1 || WG == 2, "one or two warpgroups");
  static_assert(STAGES >= 2, "at least two stages");
};

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

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Shared-memory matrix descriptor of a K-major operand in the 128-byte swizzle: start
// address, 8-row groups 1024 bytes apart, swizzle mode 1 (128 bytes).
__device__ __forceinline__ unsigned long long smem_descriptor(unsigned addr) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(16 >> 4) << 16) |
         (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
}

// Writes done by the generic proxy (cp.async, st.shared) visible to wgmma's reads.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_wait_all() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// D[64 x 64] += A * B as one wgmma; T is the input type's name in PTX ("f16", "bf16").
#define GEMM_WG_RS64(T, d, a, desc)                                                 \
  asm volatile(                                                                   \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                 \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." T "." T " {"                   \
      "%0, %1, %2, %3, %4, %5, %6, %7, " \
      "%8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, " \
      "%24, %25, %26, %27, %28, %29, %30, %31" \
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), \
        "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1))

// D[64 x 128] += A * B as one wgmma; T is the input type's name in PTX ("f16", "bf16").
#define GEMM_WG_RS128(T, d, a, desc)                                                 \
  asm volatile(                                                                   \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                 \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." T "." T " {"                   \
      "%0, %1, %2, %3, %4, %5, %6, %7, " \
      "%8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, " \
      "%24, %25, %26, %27, %28, %29, %30, %31, " \
      "%32, %33, %34, %35, %36, %37, %38, %39, " \
      "%40, %41, %42, %43, %44, %45, %46, %47, " \
      "%48, %49, %50, %51, %52, %53, %54, %55, " \
      "%56, %57, %58, %59, %60, %61, %62, %63" \
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, 0;\n}\n"                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), \
        "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
        "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1))

// D[64 x 256] += A * B as one wgmma; T is the input type's name in PTX ("f16", "bf16").
#define GEMM_WG_RS256(T, d, a, desc)                                                 \
  asm volatile(                                                                   \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                 \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." T "." T " {"                   \
      "%0, %1, %2, %3, %4, %5, %6, %7, " \
      "%8, %9, %10, %11, %12, %13, %14, %15, " \
      "%16, %17, %18, %19, %20, %21, %22, %23, " \
      "%24, %25, %26, %27, %28, %29, %30, %31, " \
      "%32, %33, %34, %35, %36, %37, %38, %39, " \
      "%40, %41, %42, %43, %44, %45, %46, %47, " \
      "%48, %49, %50, %51, %52, %53, %54, %55, " \
      "%56, %57, %58, %59, %60, %61, %62, %63, " \
      "%64, %65, %66, %67, %68, %69, %70, %71, " \
      "%72, %73, %74, %75, %76, %77, %78, %79, " \
      "%80, %81, %82, %83, %84, %85, %86, %87, " \
      "%88, %89, %90, %91, %92, %93, %94, %95, " \
      "%96, %97, %98, %99, %100, %101, %102, %103, " \
      "%104, %105, %106, %107, %108, %109, %110, %111, " \
      "%112, %113, %114, %115, %116, %117, %118, %119, " \
      "%120, %121, %122, %123, %124, %125, %126, %127" \
      "}, {%128, %129, %130, %131}, %132, p, 1, 1, 0;\n}\n"                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), \
        "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
        "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), \
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), \
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), \
        "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
        "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), \
        "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
        "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), \
        "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), \
        "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), \
        "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), \
        "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(1))


// D[64 x N] += A[64 x 16] (registers, the m16n8k16 A fragment per warp) * B[16 x N] (shared,
// K-major, described by desc).
template <int N, bool kBf16>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const unsigned (&a)[4],
                                         unsigned long long desc) {
  static_assert(N == 64 || N == 128 || N == 256, "wgmma N: 64, 128 or 256");
  if constexpr (N == 64) {
    if constexpr (kBf16) GEMM_WG_RS64("bf16", d, a, desc); else GEMM_WG_RS64("f16", d, a, desc);
  } else if constexpr (N == 128) {
    if constexpr (kBf16) GEMM_WG_RS128("bf16", d, a, desc); else GEMM_WG_RS128("f16", d, a, desc);
  } else {
    if constexpr (kBf16) GEMM_WG_RS256("bf16", d, a, desc); else GEMM_WG_RS256("f16", d, a, desc);
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

// Starts loading step k0's tiles into one stage: A[m0.., k0..] (swizzled rows) and
// B[k0.., n0..] (padded rows).
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
      const int r = i / 8;
      const int c = i % 8;
      const int m = m0 + r;
      const int k = k0 + c * 8;
      unsigned char* dst = a_stage + r * 128 + ((c ^ (r % 8)) * 16);
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
      const int r = i / (Cfg::BN / 8);
      const int c = i % (Cfg::BN / 8);
      const int k = k0 + r;
      const int n = n0 + c * 8;
      unsigned char* dst = b_stage + (r * Cfg::kBRowChunks + c) * 16;
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
__device__ __forceinline__ void gemm_wgmma(const unsigned short* __restrict__ A,
                                           const unsigned short* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
  // The swizzle is a function of address bits: each A stage starts 1024-byte aligned.
  const unsigned base = shared_address(gemm_wgmma_smem);
  unsigned char* a_smem = gemm_wgmma_smem + (((base + 1023u) & ~1023u) - base);
  unsigned char* b_smem = a_smem + Cfg::STAGES * Cfg::kAStageBytes;
  const int m0 = blockIdx.y * Cfg::BM;
  const int n0 = blockIdx.x * Cfg::BN;
  const int warpgroup = threadIdx.x / 128;
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int nb = warpgroup * 64 + warp * 16;  // this warp's 16 rows of B^T in the tile
  // Uniform over the grid, so the copy path never diverges.
  const unsigned long long addresses =
      reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B);
  const bool async = K % 8 == 0 && N % 8 == 0 && addresses % 16 == 0;

  float acc[Cfg::BM / 2];
#pragma unroll
  for (int i = 0; i < Cfg::BM / 2; ++i) acc[i] = 0.f;

  // ldmatrix.x4.trans of B^T[nb.., k..]: lanes 0-7 address k rows 0-7 at n 0-7 (a0), 8-15
  // the same rows at n 8-15 (a1), 16-31 k rows 8-15 (a2, a3).
  const int b_row = (lane % 8) + 8 * (lane / 16);
  const int b_chunk = nb / 8 + (lane / 8) % 2;

  const int steps = (K + kBK - 1) / kBK;
#pragma unroll
  for (int s = 0; s < Cfg::STAGES - 1; ++s) {
    if (s < steps) {
      load_stage<Cfg>(a_smem + s * Cfg::kAStageBytes, b_smem + s * Cfg::kBStageBytes, A, B, M, N,
                      K, m0, n0, s * kBK, async);
    }
    cp_async_commit();
  }
  int read_stage = 0;
  int write_stage = Cfg::STAGES - 1;
  for (int t = 0; t < steps; ++t) {
    // Step t's group is complete and visible to wgmma; the barrier also orders every
    // warpgroup's finished reads of the stage about to be refilled (step t - 1, waited for).
    cp_async_wait<Cfg::STAGES - 2>();
    fence_proxy_async();
    __syncthreads();
    const int next = t + Cfg::STAGES - 1;
    if (next < steps) {
      load_stage<Cfg>(a_smem + write_stage * Cfg::kAStageBytes,
                      b_smem + write_stage * Cfg::kBStageBytes, A, B, M, N, K, m0, n0,
                      next * kBK, async);
    }
    cp_async_commit();

    const unsigned char* b_stage = b_smem + read_stage * Cfg::kBStageBytes;
    unsigned a[kBK / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      ldmatrix_x4_trans(a[kk], shared_address(b_stage + ((kk * 16 + b_row) * Cfg::kBRowChunks +
                                                         b_chunk) * 16));
    }
    const unsigned a_stage = shared_address(a_smem + read_stage * Cfg::kAStageBytes);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      // 16 elements of K are 32 bytes into the swizzled row; the hardware applies the
      // swizzle to the address it computes.
      wgmma_rs<Cfg::BM, kBf16>(acc, a[kk], smem_descriptor(a_stage + kk * 32));
    }
    wgmma_commit();
    wgmma_wait_all();
    read_stage = read_stage + 1 == Cfg::STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == Cfg::STAGES ? 0 : write_stage + 1;
  }
  cp_async_wait<0>();

  // Accumulator layout of m64nBM: warp w holds rows 16w..16w+15 (of B^T, i.e. columns n of
  // C); for each 8 columns j (rows m of C), acc[4j], acc[4j+1] at row lane / 4, columns
  // 8j + 2 (lane % 4) + {0, 1}; acc[4j+2], acc[4j+3] eight rows below.
#pragma unroll
  for (int j = 0; j < Cfg::BM / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int n = n0 + nb + lane / 4 + (e / 2) * 8;
      const int m = m0 + j * 8 + (lane % 4) * 2 + e % 2;
      if (m < M && n < N) C[static_cast<long long>(m) * N + n] = acc[4 * j + e];
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

}  // namespace gemm_wgmma_detail

using GemmWgF16Config =
    gemm_wgmma_detail::Config<GEMM_WG_F16_BM, GEMM_WG_F16_WG, GEMM_WG_F16_STAGES>;
using GemmWgBf16Config =
    gemm_wgmma_detail::Config<GEMM_WG_BF16_BM, GEMM_WG_BF16_WG, GEMM_WG_BF16_STAGES>;

// clang-format off
/* @kernelevo
id: gemm_wgmma_f16
kernel: gemm_wgmma_f16
arch: sm_90a
params:
  GEMM_WG_F16_BM: [64, 128, 256]
  GEMM_WG_F16_WG: [1, 2]
  GEMM_WG_F16_STAGES: [2, 3, 4, 5]
let:
  STAGE_BYTES: "GEMM_WG_F16_BM * 128 + 64 * (64 * GEMM_WG_F16_WG + 8) * 2"
constraints:
  - "GEMM_WG_F16_STAGES * STAGE_BYTES + 1024 <= 227 * 1024"
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
  grid: ["ceil_div(N, 64 * GEMM_WG_F16_WG)", "ceil_div(M, GEMM_WG_F16_BM)"]
  block: ["128 * GEMM_WG_F16_WG"]
  shared_bytes: "GEMM_WG_F16_STAGES * STAGE_BYTES + 1024"
reference: gemm_wgmma_f16_naive
tolerance: {rtol: 1e-3, atol: 5e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N)*2 + M*N*4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(GemmWgF16Config::kThreads)
    gemm_wgmma_f16(const __half* __restrict__ A, const __half* __restrict__ B,
                   float* __restrict__ C, int M, int N, int K) {
  gemm_wgmma_detail::gemm_wgmma<GemmWgF16Config, false>(
      reinterpret_cast<const unsigned short*>(A), reinterpret_cast<const unsigned short*>(B), C, M,
      N, K);
}

// clang-format off
/* @kernelevo
id: gemm_wgmma_bf16
kernel: gemm_wgmma_bf16
arch: sm_90a
params:
  GEMM_WG_BF16_BM: [64, 128, 256]
  GEMM_WG_BF16_WG: [1, 2]
  GEMM_WG_BF16_STAGES: [2, 3, 4, 5]
let:
  STAGE_BYTES: "GEMM_WG_BF16_BM * 128 + 64 * (64 * GEMM_WG_BF16_WG + 8) * 2"
constraints:
  - "GEMM_WG_BF16_STAGES * STAGE_BYTES + 1024 <= 227 * 1024"
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
  grid: ["ceil_div(N, 64 * GEMM_WG_BF16_WG)", "ceil_div(M, GEMM_WG_BF16_BM)"]
  block: ["128 * GEMM_WG_BF16_WG"]
  shared_bytes: "GEMM_WG_BF16_STAGES * STAGE_BYTES + 1024"
reference: gemm_wgmma_bf16_naive
tolerance: {rtol: 1e-3, atol: 5e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N)*2 + M*N*4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(GemmWgBf16Config::kThreads)
    gemm_wgmma_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                    float* __restrict__ C, int M, int N, int K) {
  gemm_wgmma_detail::gemm_wgmma<GemmWgBf16Config, true>(
      reinterpret_cast<const unsigned short*>(A), reinterpret_cast<const unsigned short*>(B), C, M,
      N, K);
}

extern "C" __global__ void gemm_wgmma_f16_naive(const __half* __restrict__ A,
                                                const __half* __restrict__ B,
                                                float* __restrict__ C, int M, int N, int K) {
  gemm_wgmma_detail::gemm_naive(A, B, C, M, N, K);
}

extern "C" __global__ void gemm_wgmma_bf16_naive(const __nv_bfloat16* __restrict__ A,
                                                 const __nv_bfloat16* __restrict__ B,
                                                 float* __restrict__ C, int M, int N, int K) {
  gemm_wgmma_detail::gemm_naive(A, B, C, M, N, K);
}
