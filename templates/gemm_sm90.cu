// Tensor-core GEMM for Hopper (sm_90a), row-major, fp16 or bf16 in and out (as cuBLAS's
// A @ B), fp32 accumulation: C[M, N] = A[M, K] * B[K, N]; and FP8 (e4m3 in, per-tensor
// scales, bf16 out, as torch._scaled_mm): C = scale_a * scale_b * A[M, K] * B[N, K]^T, where B
// comes as [N, K] (column-major K x N), since fp8 wgmma reads both operands K-major. The fp8
// kernel accumulates as wgmma does, with no promotion to a separate fp32 sum (cuBLASLt's
// "fast accumulation"): its partial sums keep about 14 bits, so on uniform random inputs at
// K = 4096 a result near zero may be off by up to about 1 (measured on the H200). Its spec
// therefore verifies on small integers, on which that accumulation is exact and a dropped or
// misplaced product moves a result by at least scale_a * scale_b.
// A STAGES-deep ring of shared tiles is filled either by TMA (TMA = 1: one thread issues the
// stage's tensor copies through the maps map_a and map_b, which kernelevo's runner encodes for
// the buffers it passes, and the "full" mbarrier counts their bytes) or by cp.async (TMA = 0:
// every loading thread's 16-byte copies, signalled by cp.async.mbarrier.arrive). A stage is
// released on its "empty" mbarrier by every consumer warp once its wgmma is done. CONSUMERS
// warpgroups each own MW x 64 rows of the BM x BN tile and multiply from shared memory with
// wgmma (A K-major, B MN-major, both in the 128-byte swizzle TMA writes), keeping one stage's
// wgmma in flight while the next is issued. With PRODUCERS = 1 a producer warpgroup of its own
// does the loads (warp specialisation; setmaxnreg gives the consumers its registers); with 0
// the consumers load the stage the previous step used while the current step's wgmma runs.
// Tiles are taken in a grouped raster order (GROUP_M tile rows at a time) so neighbouring tiles
// share A and B in L2. With SPLIT > 1 (split-K, for shapes with too few tiles to fill the GPU,
// such as decoding's M = 16), when the tiles are fewer than the GPU's SMs (132 on an H200) the
// launch gives each tile a thread-block cluster of SPLIT CTAs (launch.cluster; a launch without a
// cluster does not split), which share its k-steps and add their fp32 partials through
// distributed shared memory, in rank order. The epilogue converts the accumulators to the output
// type, stages them in shared memory and writes 16-byte rows. Tiles past the edges are zero-filled
// (by TMA, or by the copies) and their stores skipped; when K or N is not a multiple of 8 (or a
// pointer is not 16-byte aligned) no tensor map can describe the operands (the runner passes zeros)
// and tiles are loaded and stored element by element, so every configuration is correct for every
// shape. Four kernels, each with its own parameters: fp16 (G90_F16_*), bf16 (G90_BF16_*),
// fp8 (G90_FP8_*), and bf16 with a bias + GELU epilogue (G90_BG_*).
// With PERSISTENT = 1 (a producer warpgroup, no split) a CTA per SM walks the tiles: the
// producer loads the next tile's k-steps while the consumers finish one, and the epilogue goes
// through a staging of its own and TMA stores of C (map_c) that drain meanwhile.
// With MCAST = 2 (a producer warpgroup, TMA, no split, one tile a CTA) the CTAs come in
// clusters of two on the two tiles of a pair of tile rows: each loads its own A and half of
// their common B, which TMA multicasts into both CTAs' rings, and a stage is refilled once the
// consumers of both have released it (they arrive on both CTAs' empty barriers).
// With cp.async alone the loads bound it (bench/results/2026-12-03-gemm-sm90-h200).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "gemm_sm90.cu uses wgmma and setmaxnreg: compile it for sm_90a"
#endif
// Each spec's `defines` sets G90_ONLY (1 fp16, 2 bf16, 3 fp8, 4 bf16 + bias + GELU), so a tune
// compiles only the kernel it tunes and that kernel's reference; a build, without it, compiles
// all four.
#ifdef G90_ONLY
#define G90_HAS(kernel) (G90_ONLY == (kernel))
#else
#define G90_HAS(kernel) 1
#endif
#ifndef G90_F16_BN
#define G90_F16_BN 256
#endif
#ifndef G90_F16_CONSUMERS
#define G90_F16_CONSUMERS 2
#endif
#ifndef G90_F16_MW
#define G90_F16_MW 1
#endif
#ifndef G90_F16_STAGES
#define G90_F16_STAGES 4
#endif
#ifndef G90_F16_GROUP_M
#define G90_F16_GROUP_M 8
#endif
#ifndef G90_F16_PRODUCERS
#define G90_F16_PRODUCERS 0
#endif
#ifndef G90_F16_TMA
#define G90_F16_TMA 1
#endif
#ifndef G90_F16_SPLIT
#define G90_F16_SPLIT 4
#endif
#ifndef G90_F16_PERSISTENT
#define G90_F16_PERSISTENT 0
#endif
#ifndef G90_F16_MCAST
#define G90_F16_MCAST 1
#endif
#ifndef G90_BF16_BN
#define G90_BF16_BN 256
#endif
#ifndef G90_BF16_CONSUMERS
#define G90_BF16_CONSUMERS 2
#endif
#ifndef G90_BF16_MW
#define G90_BF16_MW 1
#endif
#ifndef G90_BF16_STAGES
#define G90_BF16_STAGES 4
#endif
#ifndef G90_BF16_GROUP_M
#define G90_BF16_GROUP_M 8
#endif
#ifndef G90_BF16_PRODUCERS
#define G90_BF16_PRODUCERS 0
#endif
#ifndef G90_BF16_TMA
#define G90_BF16_TMA 1
#endif
#ifndef G90_BF16_SPLIT
#define G90_BF16_SPLIT 4
#endif
#ifndef G90_BF16_PERSISTENT
#define G90_BF16_PERSISTENT 0
#endif
#ifndef G90_BF16_MCAST
#define G90_BF16_MCAST 1
#endif
#ifndef G90_BG_BN
#define G90_BG_BN 256
#endif
#ifndef G90_BG_CONSUMERS
#define G90_BG_CONSUMERS 2
#endif
#ifndef G90_BG_MW
#define G90_BG_MW 1
#endif
#ifndef G90_BG_STAGES
#define G90_BG_STAGES 4
#endif
#ifndef G90_BG_GROUP_M
#define G90_BG_GROUP_M 8
#endif
#ifndef G90_BG_PRODUCERS
#define G90_BG_PRODUCERS 0
#endif
#ifndef G90_BG_TMA
#define G90_BG_TMA 1
#endif
#ifndef G90_BG_SPLIT
#define G90_BG_SPLIT 4
#endif
#ifndef G90_BG_PERSISTENT
#define G90_BG_PERSISTENT 0
#endif
#ifndef G90_BG_MCAST
#define G90_BG_MCAST 1
#endif
#ifndef G90_FP8_BN
#define G90_FP8_BN 256
#endif
#ifndef G90_FP8_CONSUMERS
#define G90_FP8_CONSUMERS 2
#endif
#ifndef G90_FP8_MW
#define G90_FP8_MW 1
#endif
#ifndef G90_FP8_STAGES
#define G90_FP8_STAGES 4
#endif
#ifndef G90_FP8_GROUP_M
#define G90_FP8_GROUP_M 8
#endif
#ifndef G90_FP8_PRODUCERS
#define G90_FP8_PRODUCERS 0
#endif
#ifndef G90_FP8_TMA
#define G90_FP8_TMA 1
#endif
#ifndef G90_FP8_SPLIT
#define G90_FP8_SPLIT 4
#endif
#ifndef G90_FP8_PERSISTENT
#define G90_FP8_PERSISTENT 0
#endif
#ifndef G90_FP8_MCAST
#define G90_FP8_MCAST 1
#endif

extern __shared__ __align__(1024) unsigned char gemm_sm90_smem[];

// A TMA tensor map (CUtensorMap: 128 opaque bytes), encoded by the host for the kernel's
// buffer and passed by value as a __grid_constant__ parameter; all zeros when the host could
// not describe the tensor, which happens exactly when the kernel's `aligned` test fails.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

namespace gemm_sm90_detail {

// The input types. A k-step is one 128-byte swizzled row of K: 64 16-bit or 128 fp8 elements;
// each wgmma takes 32 bytes of it (k16 or k32).
enum class In { f16, bf16, e4m3 };
template <In kIn>
struct Input {
  static constexpr int kBytes = kIn == In::e4m3 ? 1 : 2;
  static constexpr int kBK = 128 / kBytes;
  static constexpr bool kBKMajor = kIn == In::e4m3;  // B as [N, K]; else [K, N] (MN-major)
  static constexpr bool kBf16Out = kIn != In::f16;
};

template <int BN_, int CONSUMERS_, int MW_, int STAGES_, int GROUP_M_, int PRODUCERS_, int TMA_,
          int SPLIT_, int PERSISTENT_, int MCAST_>
struct Config {
  static constexpr int BN = BN_, CONSUMERS = CONSUMERS_, MW = MW_, STAGES = STAGES_;
  static constexpr int GROUP_M = GROUP_M_, PRODUCERS = PRODUCERS_, SPLIT = SPLIT_, MCAST = MCAST_;
  static constexpr bool TMA = TMA_ != 0;
  static constexpr bool PERSISTENT = PERSISTENT_ != 0;
  static constexpr int kProducerThreads = 128 * PRODUCERS;
  // Who loads the ring: the producers, or with none every thread (the consumers themselves).
  static constexpr int kLoaderThreads = PRODUCERS > 0 ? kProducerThreads : 128 * CONSUMERS_;
  // A consumer's registers after setmaxnreg: what the producers' 40 leave of the SM's 64K,
  // a multiple of 8, at most 256. More than the file holds would block setmaxnreg forever.
  static constexpr int kConsumerRegs = (65536 - 40 * kProducerThreads) / (128 * CONSUMERS) / 8 * 8 >
                                               256
                                           ? 256
                                           : (65536 - 40 * kProducerThreads) / (128 * CONSUMERS) /
                                                 8 * 8;
  static constexpr int BM = 64 * CONSUMERS * MW;
  static constexpr int kThreads = 128 * (CONSUMERS + PRODUCERS);
  static constexpr int kAStageBytes = BM * 128;      // BM rows of 64 K, swizzled
  // B: BN / 64 blocks of 8192 bytes, each 64 K rows x 128 B (MN-major) or 64 N rows x 128 B
  // (K-major)
  static constexpr int kBStageBytes = 128 * BN;
  static constexpr int kStageBytes = kAStageBytes + kBStageBytes;
  static constexpr int kOutRowBytes = BN * 2 + 16;  // the epilogue's rows, padded
  static constexpr int kAccRowBytes = BN * 4 + 16;  // split-K's fp32 partial rows, padded
  // The persistent epilogue's own staging (the ring keeps loading meanwhile): per consumer
  // and 64 columns, MW x 64 rows of 128 bytes in the 128-byte swizzle, as map_c's boxes.
  static constexpr int kStagingBytes = PERSISTENT_ != 0 ? BM * BN * 2 : 0;
  static constexpr int kAChunks = BM * 8;
  static constexpr int kBChunks = 8 * BN;
  static_assert(BN % 64 == 0 && BN >= 64 && BN <= 256, "BN is the wgmma N: 64 to 256 by 64");
  static_assert(CONSUMERS >= 1 && CONSUMERS <= 3, "one to three consumer warpgroups");
  static_assert(PRODUCERS == 0 || PRODUCERS == 1, "no producer warpgroup or one");
  static_assert(MW * BN <= 256, "at most 128 accumulators per thread");
  static_assert(STAGES >= 2, "at least two stages");
  static_assert(BM * kOutRowBytes <= STAGES * kStageBytes, "the epilogue reuses the ring");
  static_assert(SPLIT == 1 || SPLIT == 2 || SPLIT == 4 || SPLIT == 8, "a portable cluster");
  static_assert(SPLIT == 1 || PRODUCERS == 0, "every thread reaches the cluster barriers");
  static_assert(!PERSISTENT || (PRODUCERS == 1 && SPLIT == 1),
                "a persistent CTA has a producer warpgroup and no split");
  static_assert(MCAST == 1 || (MCAST == 2 && PRODUCERS == 1 && TMA_ == 1 && SPLIT == 1 &&
                               !PERSISTENT && BN % 128 == 0),
                "multicast: pairs of CTAs with a producer warpgroup, TMA, no split, one tile "
                "each, and an even number of 64-column blocks of B");
  static_assert(SPLIT == 1 || BM * kAccRowBytes <= STAGES * kStageBytes,
                "the partials reuse the ring");
};

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0));
}

// Two-dimensional TMA copy of the box at (x innermost, y) of `map` into shared memory at
// `dst`, its bytes counted on the mbarrier `bar` as they land.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap& map, int x, int y,
                                            unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

// tma_load_2d into the same offset of the shared memory of every CTA of the cluster in
// `cta_mask`, each CTA's mbarrier at `bar`'s offset counting the bytes that land in it.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap& map, int x,
                                                      int y, unsigned bar,
                                                      unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(bar), "h"(cta_mask)
      : "memory");
}

// Two-dimensional TMA store of the box at (x innermost, y) of `map` from shared memory at
// `src`, in this thread's bulk group.
__device__ __forceinline__ void tma_store_2d(const TensorMap& map, unsigned src, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
          reinterpret_cast<unsigned long long>(&map)),
      "r"(x), "r"(y), "r"(src)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// This thread's bulk stores have read their shared memory (it may be written again).
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// This thread's bulk stores are complete.
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// mbarriers in shared memory: `count` arrivals complete a phase.
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// Arrives on `bar` and makes its phase wait for `bytes` more of asynchronous copies.
__device__ __forceinline__ void mbar_arrive_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Arrives on `bar` once every cp.async this thread issued so far has landed.
__device__ __forceinline__ void mbar_arrive_on_copies(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
// Arrives on the mbarrier at `bar`'s offset in the shared memory of the cluster's CTA `rank`.
__device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// mbar_wait for a barrier the cluster's other CTAs arrive on too (acquiring at cluster scope).
__device__ __forceinline__ void mbar_wait_cluster(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

// Shared-memory matrix descriptor in the 128-byte swizzle (mode 1): start address, the
// leading and stride byte offsets. K-major (A): 8-row groups 1024 bytes apart (the leading
// offset is unused). MN-major (B): 64-element blocks of N `lead` bytes apart, 8-row groups
// of K 1024 bytes apart.
__device__ __forceinline__ unsigned long long descriptor(unsigned addr, unsigned lead) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(lead >> 4) << 16) |
         (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// The consumer warpgroups' own barrier (barrier 0 is __syncthreads).
__device__ __forceinline__ void consumers_sync(int threads) {
  asm volatile("bar.sync 1, %0;\n" ::"r"(threads) : "memory");
}
// Every thread of every CTA in the cluster: shared-memory writes before it are seen by the
// cluster's reads after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_ctas() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}
// Eight floats at `addr` in the shared memory of the cluster's CTA `rank`, added to v.
__device__ __forceinline__ void add_remote8(float (&v)[8], unsigned addr, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
  float4 lo, hi;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(lo.x), "=f"(lo.y), "=f"(lo.z), "=f"(lo.w)
               : "r"(remote)
               : "memory");
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(hi.x), "=f"(hi.y), "=f"(hi.z), "=f"(hi.w)
               : "r"(remote + 16)
               : "memory");
  v[0] += lo.x; v[1] += lo.y; v[2] += lo.z; v[3] += lo.w;
  v[4] += hi.x; v[5] += hi.y; v[6] += hi.z; v[7] += hi.w;
}

// D[64 x N] += A[64 x k] * B[k x N], both from shared memory, each described by its
// descriptor: KT is the instruction's k and types ("k16.f32.f16.f16"), TAIL its immediates
// after the predicate (the operand scales, and for 16-bit types whether A and B are
// transposed: B MN-major here; fp8 takes both K-major and has no such flags).
#define G90_SS64(KT, TAIL, d, desc_a, desc_b)                                                             \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                 \
      "wgmma.mma_async.sync.aligned.m64n64" KT                                                \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, "                                                           \
      "%8, %9, %10, %11, %12, %13, %14, %15, "                                                     \
      "%16, %17, %18, %19, %20, %21, %22, %23, "                                                   \
      "%24, %25, %26, %27, %28, %29, %30, %31"                                                     \
      "}, %32, %33, p" TAIL ";\n}\n"                                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])                                         \
      : "l"(desc_a), "l"(desc_b), "r"(1))

#define G90_SS128(KT, TAIL, d, desc_a, desc_b)                                                            \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                 \
      "wgmma.mma_async.sync.aligned.m64n128" KT                                               \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, "                                                           \
      "%8, %9, %10, %11, %12, %13, %14, %15, "                                                     \
      "%16, %17, %18, %19, %20, %21, %22, %23, "                                                   \
      "%24, %25, %26, %27, %28, %29, %30, %31, "                                                   \
      "%32, %33, %34, %35, %36, %37, %38, %39, "                                                   \
      "%40, %41, %42, %43, %44, %45, %46, %47, "                                                   \
      "%48, %49, %50, %51, %52, %53, %54, %55, "                                                   \
      "%56, %57, %58, %59, %60, %61, %62, %63"                                                     \
      "}, %64, %65, p" TAIL ";\n}\n"                                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63])                                                                                \
      : "l"(desc_a), "l"(desc_b), "r"(1))

#define G90_SS192(KT, TAIL, d, desc_a, desc_b)                                                            \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                                 \
      "wgmma.mma_async.sync.aligned.m64n192" KT                                               \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, "                                                           \
      "%8, %9, %10, %11, %12, %13, %14, %15, "                                                     \
      "%16, %17, %18, %19, %20, %21, %22, %23, "                                                   \
      "%24, %25, %26, %27, %28, %29, %30, %31, "                                                   \
      "%32, %33, %34, %35, %36, %37, %38, %39, "                                                   \
      "%40, %41, %42, %43, %44, %45, %46, %47, "                                                   \
      "%48, %49, %50, %51, %52, %53, %54, %55, "                                                   \
      "%56, %57, %58, %59, %60, %61, %62, %63, "                                                   \
      "%64, %65, %66, %67, %68, %69, %70, %71, "                                                   \
      "%72, %73, %74, %75, %76, %77, %78, %79, "                                                   \
      "%80, %81, %82, %83, %84, %85, %86, %87, "                                                   \
      "%88, %89, %90, %91, %92, %93, %94, %95"                                                     \
      "}, %96, %97, p" TAIL ";\n}\n"                                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])                            \
      : "l"(desc_a), "l"(desc_b), "r"(1))

#define G90_SS256(KT, TAIL, d, desc_a, desc_b)                                                            \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                \
      "wgmma.mma_async.sync.aligned.m64n256" KT                                               \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, "                                                           \
      "%8, %9, %10, %11, %12, %13, %14, %15, "                                                     \
      "%16, %17, %18, %19, %20, %21, %22, %23, "                                                   \
      "%24, %25, %26, %27, %28, %29, %30, %31, "                                                   \
      "%32, %33, %34, %35, %36, %37, %38, %39, "                                                   \
      "%40, %41, %42, %43, %44, %45, %46, %47, "                                                   \
      "%48, %49, %50, %51, %52, %53, %54, %55, "                                                   \
      "%56, %57, %58, %59, %60, %61, %62, %63, "                                                   \
      "%64, %65, %66, %67, %68, %69, %70, %71, "                                                   \
      "%72, %73, %74, %75, %76, %77, %78, %79, "                                                   \
      "%80, %81, %82, %83, %84, %85, %86, %87, "                                                   \
      "%88, %89, %90, %91, %92, %93, %94, %95, "                                                   \
      "%96, %97, %98, %99, %100, %101, %102, %103, "                                               \
      "%104, %105, %106, %107, %108, %109, %110, %111, "                                           \
      "%112, %113, %114, %115, %116, %117, %118, %119, "                                           \
      "%120, %121, %122, %123, %124, %125, %126, %127"                                             \
      "}, %128, %129, p" TAIL ";\n}\n"                                                         \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])         \
      : "l"(desc_a), "l"(desc_b), "r"(1))

#define G90_SS_N(N, KT, TAIL, d, desc_a, desc_b)       \
  if constexpr (N == 64) {                             \
    G90_SS64(KT, TAIL, d, desc_a, desc_b);             \
  } else if constexpr (N == 128) {                     \
    G90_SS128(KT, TAIL, d, desc_a, desc_b);            \
  } else if constexpr (N == 192) {                     \
    G90_SS192(KT, TAIL, d, desc_a, desc_b);            \
  } else {                                             \
    G90_SS256(KT, TAIL, d, desc_a, desc_b);            \
  }

template <int N, In kIn>
__device__ __forceinline__ void wgmma_ss(float (&d)[N / 2], unsigned long long desc_a,
                                         unsigned long long desc_b) {
  if constexpr (kIn == In::f16) {
    G90_SS_N(N, "k16.f32.f16.f16", ", 1, 1, 0, 1", d, desc_a, desc_b)
  } else if constexpr (kIn == In::bf16) {
    G90_SS_N(N, "k16.f32.bf16.bf16", ", 1, 1, 0, 1", d, desc_a, desc_b)
  } else {
    G90_SS_N(N, "k32.f32.e4m3.e4m3", ", 1, 1", d, desc_a, desc_b)
  }
}

// One 16-byte chunk of elements of kBytes each: src's elements [0, n), zeros past n, written
// to shared memory.
template <int kBytes>
__device__ __forceinline__ void copy_chunk_checked(unsigned char* dst, const unsigned char* src,
                                                   int n) {
  unsigned v[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int b = 0; b < 16; ++b)
    if (b / kBytes < n) v[b / 4] |= static_cast<unsigned>(src[b]) << (8 * (b % 4));
  *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
}

// f(i) for the chunks i = t, t + THREADS, ... below CHUNKS: all unrolled when the loaders
// are the consumers (registers to spare), two at a time in a producer warpgroup (40).
template <int CHUNKS, int THREADS, bool kUnroll, class F>
__device__ __forceinline__ void for_chunks(int t, F&& f) {
  if constexpr (kUnroll) {
#pragma unroll
    for (int p = 0; p < (CHUNKS + THREADS - 1) / THREADS; ++p) {
      const int i = t + p * THREADS;
      if (CHUNKS % THREADS == 0 || i < CHUNKS) f(i);
    }
  } else {
#pragma unroll 2
    for (int i = t; i < CHUNKS; i += THREADS) f(i);
  }
}

// One K-major operand's part of a k-step: X[r0.., k0..] (rows of K elements) into ROWS
// swizzled 128-byte rows (16-byte chunk c of row r at chunk c ^ (r % 8)), by the loading
// threads (t is the thread's index among them).
template <class Cfg, int kBytes, int ROWS>
__device__ __forceinline__ void load_k_major(unsigned char* stage,
                                             const unsigned char* __restrict__ X, int rows,
                                             int K, int r0, int k0, int t, bool async) {
  constexpr int kPerChunk = 16 / kBytes;
  for_chunks<ROWS * 8, Cfg::kLoaderThreads, Cfg::PRODUCERS == 0>(t, [&](int i) {
    const int r = i / 8;
    const int c = i % 8;
    const int row = r0 + r;
    const int k = k0 + c * kPerChunk;
    unsigned char* dst = stage + r * 128 + ((c ^ (r % 8)) * 16);
    const unsigned char* src = X + (static_cast<long long>(row) * K + k) * kBytes;
    if (async) {
      const bool valid = row < rows && k < K;  // K is whole chunks here: all in or all out
      cp_async_16(shared_address(dst), valid ? src : X, valid);
    } else {
      copy_chunk_checked<kBytes>(dst, src, row < rows ? K - k : 0);
    }
  });
}

// The loaders' part of one k-step: A[m0.., k0..] into BM swizzled 128-byte rows, and B
// either K-major (fp8: B[n0.., k0..] into BN rows) or MN-major (B[k0.., n0..] into BN / 64
// blocks of 64 swizzled rows of 64 N).
template <class Cfg, In kIn>
__device__ __forceinline__ void load_stage(unsigned char* a_stage, unsigned char* b_stage,
                                           const unsigned char* __restrict__ A,
                                           const unsigned char* __restrict__ B, int M, int N,
                                           int K, int m0, int n0, int k0, int t, bool async) {
  using I = Input<kIn>;
  load_k_major<Cfg, I::kBytes, Cfg::BM>(a_stage, A, M, K, m0, k0, t, async);
  if constexpr (I::kBKMajor) {
    load_k_major<Cfg, I::kBytes, Cfg::BN>(b_stage, B, N, K, n0, k0, t, async);
  } else {
    for_chunks<Cfg::kBChunks, Cfg::kLoaderThreads, Cfg::PRODUCERS == 0>(t, [&](int i) {
      const int r = i / (Cfg::BN / 8);
      const int cc = i % (Cfg::BN / 8);
      const int k = k0 + r;
      const int n = n0 + cc * 8;
      unsigned char* dst = b_stage + (cc / 8) * 8192 + r * 128 + (((cc % 8) ^ (r % 8)) * 16);
      const unsigned char* src = B + (static_cast<long long>(k) * N + n) * 2;
      if (async) {
        const bool valid = k < K && n < N;
        cp_async_16(shared_address(dst), valid ? src : B, valid);
      } else {
        copy_chunk_checked<2>(dst, src, k < K ? N - n : 0);
      }
    });
  }
}

__device__ __forceinline__ unsigned pack2(float a, float b, bool bf16) {
  if (bf16) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<const unsigned*>(&v);
  }
  const __half2 v = __floats2half2_rn(a, b);
  return *reinterpret_cast<const unsigned*>(&v);
}

// What the epilogue does to each scaled sum before rounding it to the output type: nothing,
// or add the column's bias and apply GELU (the tanh form: GPT-style MLPs', and cuBLASLt's
// GELU_BIAS epilogue's).
enum class Epi { none, bias_gelu };

struct Epilogue {
  const unsigned short* bias;  // bf16 [N] for bias_gelu
  float scale;
};

__device__ __forceinline__ float bf16_bits_to_float(unsigned short b) {
  return __uint_as_float(static_cast<unsigned>(b) << 16);
}

// tanh.approx (relative error about 2^-11, below bf16's 2^-8 rounding) instead of tanhf's
// slower exact path: the epilogue is not overlapped with the next tile's loads.
__device__ __forceinline__ float gelu_tanh(float x) {
  const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(inner));
  return 0.5f * x * (1.0f + t);
}

// The output value of column n (below N) from its fp32 sum.
template <Epi kEpi>
__device__ __forceinline__ float epilogue_value(float sum, int n, const Epilogue& e) {
  const float x = sum * e.scale;
  if constexpr (kEpi == Epi::bias_gelu) return gelu_tanh(x + bf16_bits_to_float(e.bias[n]));
  return x;
}

// The epilogue without split-K: the accumulators through the epilogue, converted to the
// output type, staged in the ring and written as 16-byte rows.
template <class Cfg, bool kBf16, Epi kEpi>
__device__ __forceinline__ void store_tile(unsigned char* ring,
                                           const float (&acc)[Cfg::MW][Cfg::BN / 2],
                                           unsigned short* __restrict__ C, int M, int N, int m0,
                                           int n0, const Epilogue& epi, bool aligned, int consumer,
                                           int warp, int lane) {
  // Accumulator layout of m64nBN: warp w holds rows 16w..16w+15; for each 8 columns j,
  // acc[4j], acc[4j+1] at row lane / 4, columns 8j + 2 (lane % 4) + {0, 1}; acc[4j+2],
  // acc[4j+3] eight rows below.
#pragma unroll
  for (int w = 0; w < Cfg::MW; ++w) {
    const int row = (consumer * Cfg::MW + w) * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < Cfg::BN / 8; ++j) {
      const int col = j * 8 + (lane % 4) * 2;
      // Columns past N are never stored; clamp them so a bias read stays inside [0, N).
      const int n_a = min(n0 + col, N - 1);
      const int n_b = min(n0 + col + 1, N - 1);
      unsigned char* p = ring + row * Cfg::kOutRowBytes + col * 2;
      *reinterpret_cast<unsigned*>(p) =
          pack2(epilogue_value<kEpi>(acc[w][4 * j], n_a, epi),
                epilogue_value<kEpi>(acc[w][4 * j + 1], n_b, epi), kBf16);
      *reinterpret_cast<unsigned*>(p + 8 * Cfg::kOutRowBytes) =
          pack2(epilogue_value<kEpi>(acc[w][4 * j + 2], n_a, epi),
                epilogue_value<kEpi>(acc[w][4 * j + 3], n_b, epi), kBf16);
    }
  }
  consumers_sync(128 * Cfg::CONSUMERS);
  const int t = threadIdx.x - Cfg::kProducerThreads;
  constexpr int kRowChunks = Cfg::BN / 8;
  for (int i = t; i < Cfg::BM * kRowChunks; i += 128 * Cfg::CONSUMERS) {
    const int r = i / kRowChunks;
    const int c = i % kRowChunks;
    const int m = m0 + r;
    const int n = n0 + c * 8;
    if (m >= M || n >= N) continue;
    const unsigned char* src = ring + r * Cfg::kOutRowBytes + c * 16;
    unsigned short* dst = C + static_cast<long long>(m) * N + n;
    if (aligned) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else {
      const unsigned short* v = reinterpret_cast<const unsigned short*>(src);
      for (int e = 0; e < 8 && n + e < N; ++e) dst[e] = v[e];
    }
  }
}

// The persistent kernel's epilogue with TMA: the accumulators through the epilogue, converted
// and written into the staging in map_c's 128-byte swizzle (conflict-free: a warp's eight rows
// land in eight different 16-byte chunks), then one thread stores each consumer's 64-column
// boxes with TMA (rows and columns past the edges are clipped) and the consumers go on to the
// next tile while the stores drain. The previous tile's stores must have read the staging
// before it is written again.
template <class Cfg, bool kBf16, Epi kEpi>
__device__ __forceinline__ void store_tile_tma(unsigned char* staging,
                                               const float (&acc)[Cfg::MW][Cfg::BN / 2],
                                               const TensorMap& map_c, int N, int m0, int n0,
                                               const Epilogue& epi, int consumer, int warp,
                                               int lane) {
  constexpr int kBlockBytes = Cfg::MW * 64 * 128;  // one consumer's rows of 64 columns
  const bool issuer = threadIdx.x == Cfg::kProducerThreads;
  if (issuer) bulk_wait_read();
  consumers_sync(128 * Cfg::CONSUMERS);
#pragma unroll
  for (int w = 0; w < Cfg::MW; ++w) {
    const int row = w * 64 + warp * 16 + lane / 4;  // within the consumer's rows
#pragma unroll
    for (int j = 0; j < Cfg::BN / 8; ++j) {
      const int col = j * 8 + (lane % 4) * 2;
      const int n_a = min(n0 + col, N - 1);
      const int n_b = min(n0 + col + 1, N - 1);
      unsigned char* block = staging + (consumer * (Cfg::BN / 64) + j / 8) * kBlockBytes;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = row + 8 * h;
        *reinterpret_cast<unsigned*>(block + r * 128 + (((j % 8) ^ (r % 8)) * 16) +
                                     (lane % 4) * 4) =
            pack2(epilogue_value<kEpi>(acc[w][4 * j + 2 * h], n_a, epi),
                  epilogue_value<kEpi>(acc[w][4 * j + 2 * h + 1], n_b, epi), kBf16);
      }
    }
  }
  fence_proxy_async();  // the staging's writes (generic proxy) made visible to the TMA store
  consumers_sync(128 * Cfg::CONSUMERS);
  if (issuer) {
    const unsigned base = shared_address(staging);
#pragma unroll
    for (int c = 0; c < Cfg::CONSUMERS; ++c)
#pragma unroll
      for (int jb = 0; jb < Cfg::BN / 64; ++jb)
        tma_store_2d(map_c, base + (c * (Cfg::BN / 64) + jb) * kBlockBytes, n0 + 64 * jb,
                     m0 + c * Cfg::MW * 64);
    bulk_commit();
  }
}

// The persistent kernel's epilogue where no tensor map describes C: the accumulators through
// the epilogue, stored straight from registers (each thread two adjacent outputs of a row; a
// warp's four threads of a row write 16 contiguous bytes).
template <class Cfg, bool kBf16, Epi kEpi>
__device__ __forceinline__ void store_tile_direct(const float (&acc)[Cfg::MW][Cfg::BN / 2],
                                                  unsigned short* __restrict__ C, int M, int N,
                                                  int m0, int n0, const Epilogue& epi,
                                                  bool aligned, int consumer, int warp,
                                                  int lane) {
#pragma unroll
  for (int w = 0; w < Cfg::MW; ++w) {
    const int row = m0 + (consumer * Cfg::MW + w) * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < Cfg::BN / 8; ++j) {
      const int n = n0 + j * 8 + (lane % 4) * 2;
      if (n >= N) continue;
      const int n1 = min(n + 1, N - 1);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = row + 8 * h;
        if (m >= M) continue;
        const unsigned packed = pack2(epilogue_value<kEpi>(acc[w][4 * j + 2 * h], n, epi),
                                      epilogue_value<kEpi>(acc[w][4 * j + 2 * h + 1], n1, epi),
                                      kBf16);
        unsigned short* dst = C + static_cast<long long>(m) * N + n;
        if (aligned) {  // N % 8 == 0 and n even: a 4-byte store inside the row
          *reinterpret_cast<unsigned*>(dst) = packed;
        } else {
          dst[0] = static_cast<unsigned short>(packed & 0xFFFFu);
          if (n + 1 < N) dst[1] = static_cast<unsigned short>(packed >> 16);
        }
      }
    }
  }
}

// Split-K's epilogue: each CTA of the cluster leaves its fp32 partial tile in its own ring;
// then each reduces its share of the tile's 8-column chunks over the cluster's partials, in
// rank order (the same sum every run), and writes them times `scale` in the output type. The
// last barrier keeps every partial in place until the whole cluster has read it.
template <class Cfg, bool kBf16, Epi kEpi>
__device__ __forceinline__ void reduce_split_tile(unsigned char* ring,
                                                  const float (&acc)[Cfg::MW][Cfg::BN / 2],
                                                  unsigned short* __restrict__ C, int M, int N,
                                                  int m0, int n0, int splits, const Epilogue& epi,
                                                  bool aligned, int consumer, int warp,
                                                  int lane) {
#pragma unroll
  for (int w = 0; w < Cfg::MW; ++w) {
    const int row = (consumer * Cfg::MW + w) * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < Cfg::BN / 8; ++j) {
      unsigned char* p = ring + row * Cfg::kAccRowBytes + (j * 8 + (lane % 4) * 2) * 4;
      *reinterpret_cast<float2*>(p) = make_float2(acc[w][4 * j], acc[w][4 * j + 1]);
      *reinterpret_cast<float2*>(p + 8 * Cfg::kAccRowBytes) =
          make_float2(acc[w][4 * j + 2], acc[w][4 * j + 3]);
    }
  }
  cluster_sync();
  constexpr int kRowChunks = Cfg::BN / 8;
  constexpr int kThreads = 128 * Cfg::CONSUMERS;
  const int rows = min(Cfg::BM, M - m0);
  const unsigned base = shared_address(ring);
  const int first = static_cast<int>(cluster_rank()) * kThreads + static_cast<int>(threadIdx.x);
  for (int i = first; i < rows * kRowChunks; i += splits * kThreads) {
    const int r = i / kRowChunks;
    const int c = i % kRowChunks;
    const int n = n0 + c * 8;
    if (n >= N) continue;
    float v[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int p = 0; p < splits; ++p)
      add_remote8(v, base + r * Cfg::kAccRowBytes + c * 32, static_cast<unsigned>(p));
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = epilogue_value<kEpi>(v[k], min(n + k, N - 1), epi);
    uint4 packed;
    packed.x = pack2(v[0], v[1], kBf16);
    packed.y = pack2(v[2], v[3], kBf16);
    packed.z = pack2(v[4], v[5], kBf16);
    packed.w = pack2(v[6], v[7], kBf16);
    unsigned short* dst = C + static_cast<long long>(m0 + r) * N + n;
    if (aligned) {
      *reinterpret_cast<uint4*>(dst) = packed;
    } else {
      const unsigned words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
      for (int k = 0; k < 8; ++k)
        if (n + k < N) dst[k] = static_cast<unsigned short>(words[k / 2] >> (16 * (k % 2)));
    }
  }
  cluster_sync();
}

// `epi.scale` multiplies the result (fp8's scale_a * scale_b; 1 for the 16-bit types), then
// kEpi's bias and activation apply.
template <class Cfg, In kIn, Epi kEpi = Epi::none>
__device__ __forceinline__ void gemm_sm90(const unsigned char* __restrict__ A,
                                          const unsigned char* __restrict__ B,
                                          unsigned short* __restrict__ C, int M, int N, int K,
                                          const Epilogue& epi, const TensorMap& map_a,
                                          const TensorMap& map_b, const TensorMap& map_c) {
  using I = Input<kIn>;
  constexpr int kBK = I::kBK;
  // The swizzle is a function of address bits: the ring starts 1024-byte aligned.
  const unsigned base = shared_address(gemm_sm90_smem);
  unsigned char* ring = gemm_sm90_smem + (((base + 1023u) & ~1023u) - base);
  unsigned char* staging = ring + Cfg::STAGES * Cfg::kStageBytes;  // 1024-byte aligned
  const unsigned bars = shared_address(staging + Cfg::kStagingBytes);
  const auto full = [&](int s) { return bars + 8u * s; };
  const auto empty = [&](int s) { return bars + 8u * (Cfg::STAGES + s); };
  // Uniform over the grid, so the copy path never diverges.
  const unsigned long long addresses = reinterpret_cast<unsigned long long>(A) |
                                       reinterpret_cast<unsigned long long>(B) |
                                       reinterpret_cast<unsigned long long>(C);
  // K in whole 16-byte chunks (A's rows, and B's as fp8), N in whole chunks of the output's
  // (and 16-bit B's) 16-bit elements.
  const bool aligned = K * I::kBytes % 16 == 0 && N % 8 == 0 && addresses % 16 == 0;
  // The tensor maps are usable exactly when the rows are whole 16-byte chunks and the buffers
  // aligned: one thread then moves each stage with TMA copies.
  const bool use_tma = Cfg::TMA && aligned;
  // Multicast (MCAST = 2, launched in clusters of two): the two CTAs of a cluster take the two
  // tiles of a pair of tile rows in one tile column; each loads its own A and half of the
  // 64-column blocks of their common B into both CTAs' rings, and a stage is refilled only
  // once the consumers of both are done with it. Without a cluster (or TMA) each CTA loads its
  // whole tile alone.
  const bool mcast = Cfg::MCAST > 1 && use_tma && cluster_ctas() == 2;
  const unsigned rank = Cfg::MCAST > 1 ? blockIdx.x % 2 : 0;  // in the pair
  if (threadIdx.x == 0) {
    if (use_tma) {
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(&map_a))
                   : "memory");
      asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(&map_b))
                   : "memory");
      if (Cfg::PERSISTENT)
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(
                         reinterpret_cast<unsigned long long>(&map_c))
                     : "memory");
    }
    for (int s = 0; s < Cfg::STAGES; ++s) {
      // the issuing thread's arrival and its copies' bytes, or each loading thread's copies
      mbar_init(full(s), use_tma ? 1 : Cfg::kLoaderThreads);
      mbar_init(empty(s), 4 * Cfg::CONSUMERS * (mcast ? 2 : 1));  // each consumer warp (of both)
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if (mcast) {
    cluster_sync();  // the pair's barriers are initialised before either copies into them
  } else {
    __syncthreads();
  }

  // Grouped raster order: GROUP_M tile rows are walked column by column.
  const int tiles_m = (M + Cfg::BM - 1) / Cfg::BM;
  const int tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  const int tiles = tiles_m * tiles_n;
  // Tile `id` of a grid of `rows` x tiles_n in that order (its row and column).
  const auto raster = [&](int id, int rows, int& row, int& col) {
    const int group = id / (Cfg::GROUP_M * tiles_n);
    const int first_m = group * Cfg::GROUP_M;
    const int rows_in_group = min(rows - first_m, Cfg::GROUP_M);
    const int in_group = id - group * Cfg::GROUP_M * tiles_n;
    row = first_m + in_group % rows_in_group;
    col = in_group / rows_in_group;
  };
  const auto tile_origin = [&](int id, int& m0, int& n0) {
    int row = 0, col = 0;
    raster(id, tiles_m, row, col);
    m0 = row * Cfg::BM;
    n0 = col * Cfg::BN;
  };
  const int all_steps = (K + kBK - 1) / kBK;
  const int warpgroup = threadIdx.x / 128;
  int m0 = 0;
  int n0 = 0;

  // K-step `k` of tile (m0, n0) into ring stage `stage`, then the arrival on the stage's full
  // barrier (by the copies themselves when they are asynchronous).
  const auto load = [&](int stage, int k, int t) {
    unsigned char* a_stage = ring + stage * Cfg::kStageBytes;
    if (use_tma) {
      // A: each consumer's MW x 64 rows of one k-step; B: BN / 64 blocks of 64 K rows x 64 N
      // (or, K-major, of 64 N rows of one k-step). The boxes land in the 128-byte swizzle wgmma
      // reads; rows and columns past the edges are zeros.
      const unsigned a = shared_address(a_stage);
      const unsigned b = a + Cfg::kAStageBytes;
      mbar_arrive_expect_bytes(full(stage), Cfg::kStageBytes);
#pragma unroll
      for (int c = 0; c < Cfg::CONSUMERS; ++c)
        tma_load_2d(a + c * Cfg::MW * 64 * 128, map_a, k * kBK, m0 + c * Cfg::MW * 64,
                    full(stage));
#pragma unroll
      for (int j = 0; j < Cfg::BN / 64; ++j) {
        const int x = I::kBKMajor ? k * kBK : n0 + 64 * j;
        const int y = I::kBKMajor ? n0 + 64 * j : k * kBK;
        if (!mcast)
          tma_load_2d(b + j * 8192, map_b, x, y, full(stage));
        else if (j % 2 == static_cast<int>(rank))  // its half of B, into both rings
          tma_load_2d_multicast(b + j * 8192, map_b, x, y, full(stage), 0x3);
      }
      return;
    }
    load_stage<Cfg, kIn>(a_stage, a_stage + Cfg::kAStageBytes, A, B, M, N, K, m0, n0, k * kBK,
                         t, aligned);
    if (aligned) {
      mbar_arrive_on_copies(full(stage));
    } else {
      mbar_arrive(full(stage));
    }
  };
  const bool loads = !use_tma || threadIdx.x == 0;  // this thread takes part in the loads
  const int consumer = warpgroup - Cfg::PRODUCERS;
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  // One k-step's wgmma from ring stage `stage` into acc, committed as one group.
  const auto multiply = [&](float (&acc)[Cfg::MW][Cfg::BN / 2], int stage) {
    if (!use_tma) fence_proxy_async();  // cp.async's writes (generic proxy) made visible to wgmma
    const unsigned a_stage =
        shared_address(ring + stage * Cfg::kStageBytes) + consumer * Cfg::MW * 64 * 128;
    const unsigned b_stage = shared_address(ring + stage * Cfg::kStageBytes + Cfg::kAStageBytes);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
      for (int w = 0; w < Cfg::MW; ++w) {
        // 32 bytes of K: into A's swizzled rows (and K-major B's), or two 8-row groups of
        // MN-major B. (Skipping the wgmma of rows past M would put it on a divergent path,
        // which ptxas serializes.)
        const unsigned long long desc_b = I::kBKMajor
                                              ? descriptor(b_stage + kk * 32, 16)
                                              : descriptor(b_stage + kk * 2048, kBK * 128);
        wgmma_ss<Cfg::BN, kIn>(acc[w], descriptor(a_stage + w * 64 * 128 + kk * 32, 16), desc_b);
      }
    }
    wgmma_commit();
  };

  if constexpr (Cfg::PERSISTENT) {
    // A CTA per SM (the launch's grid) walks the tiles id = blockIdx.x, + gridDim.x, ...; the
    // producer warpgroup runs ahead into the next tile's k-steps while the consumers finish
    // one, and the ring's stages and barrier phases continue across tiles (step counter g).
    // The epilogue has a staging of its own (TMA stores that drain while the next tile runs),
    // or stores from registers where no tensor map describes C; the ring is never its.
    if (warpgroup < Cfg::PRODUCERS) {
      asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
      if (!loads) return;
      int g = 0;
      for (int id = static_cast<int>(blockIdx.x); id < tiles; id += static_cast<int>(gridDim.x)) {
        tile_origin(id, m0, n0);
        for (int s = 0; s < all_steps; ++s, ++g) {
          if (g >= Cfg::STAGES) mbar_wait(empty(g % Cfg::STAGES), ((g / Cfg::STAGES) & 1) ^ 1);
          load(g % Cfg::STAGES, s, threadIdx.x);
        }
      }
      return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Cfg::kConsumerRegs));
    float acc[Cfg::MW][Cfg::BN / 2];
    int g = 0;
    for (int id = static_cast<int>(blockIdx.x); id < tiles; id += static_cast<int>(gridDim.x)) {
      tile_origin(id, m0, n0);
#pragma unroll
      for (int w = 0; w < Cfg::MW; ++w)
#pragma unroll
        for (int i = 0; i < Cfg::BN / 2; ++i) acc[w][i] = 0.f;
      for (int s = 0; s < all_steps; ++s, ++g) {
        mbar_wait(full(g % Cfg::STAGES), (g / Cfg::STAGES) & 1);
        multiply(acc, g % Cfg::STAGES);
        wgmma_wait<1>();  // step g - 1's wgmma are done: its stage may be refilled
        if (s > 0 && lane == 0) mbar_arrive(empty((g - 1) % Cfg::STAGES));
      }
      wgmma_wait<0>();
      if (all_steps > 0 && lane == 0) mbar_arrive(empty((g - 1) % Cfg::STAGES));
      if (use_tma)
        store_tile_tma<Cfg, I::kBf16Out, kEpi>(staging, acc, map_c, N, m0, n0, epi, consumer,
                                               warp, lane);
      else
        store_tile_direct<Cfg, I::kBf16Out, kEpi>(acc, C, M, N, m0, n0, epi, aligned, consumer,
                                                  warp, lane);
    }
    if (use_tma && threadIdx.x == Cfg::kProducerThreads) bulk_wait();
    return;
  }

  // One tile per CTA. The launch says whether K is split: in clusters (tiles times their size
  // CTAs) the CTAs of a cluster, consecutive in x, share a tile and each takes an even share
  // of its k-steps.
  const int splits = Cfg::SPLIT > 1 ? static_cast<int>(cluster_ctas()) : 1;
  const bool split_k = splits > 1;
  if constexpr (Cfg::MCAST > 1) {
    // Pairs of tile rows walked in the grouped order; a CTA of a multicasting pair whose row
    // is past M still loads its half of B and releases stages for its partner (its A reads as
    // zeros and its stores are skipped).
    const int pair = static_cast<int>(blockIdx.x) / 2;
    const int pair_rows = (tiles_m + 1) / 2;
    if (pair >= pair_rows * tiles_n) return;  // a grid larger than the pairs (both CTAs)
    int row = 0, col = 0;
    raster(pair, pair_rows, row, col);
    m0 = (2 * row + static_cast<int>(rank)) * Cfg::BM;
    n0 = col * Cfg::BN;
    if (!mcast && m0 >= M) return;
  } else {
    const int id = static_cast<int>(blockIdx.x) / splits;
    if (id >= tiles) return;  // a grid larger than the tiles
    tile_origin(id, m0, n0);
  }
  const int split = split_k ? static_cast<int>(cluster_rank()) : 0;
  const int first_step = split * all_steps / splits;
  const int steps = (split + 1) * all_steps / splits - first_step;

  if (Cfg::PRODUCERS == 0 && loads) {
    for (int s = 0; s < Cfg::STAGES - 1 && s < steps; ++s)
      load(s % Cfg::STAGES, first_step + s, threadIdx.x);
  }
  if (warpgroup < Cfg::PRODUCERS) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (loads) {
      for (int s = 0; s < steps; ++s) {
        if (s >= Cfg::STAGES) {
          const unsigned free_parity = ((s / Cfg::STAGES) & 1) ^ 1;
          if (mcast)
            mbar_wait_cluster(empty(s % Cfg::STAGES), free_parity);
          else
            mbar_wait(empty(s % Cfg::STAGES), free_parity);
        }
        load(s % Cfg::STAGES, first_step + s, threadIdx.x);
      }
    }
    if (mcast) cluster_sync();  // the partner may arrive on this CTA's barriers until then
    return;
  }

  if (Cfg::PRODUCERS > 0)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Cfg::kConsumerRegs));
  float acc[Cfg::MW][Cfg::BN / 2];
#pragma unroll
  for (int w = 0; w < Cfg::MW; ++w)
#pragma unroll
    for (int i = 0; i < Cfg::BN / 2; ++i) acc[w][i] = 0.f;

  for (int s = 0; s < steps; ++s) {
    const int stage = s % Cfg::STAGES;
    mbar_wait(full(stage), (s / Cfg::STAGES) & 1);
    multiply(acc, stage);
    wgmma_wait<1>();  // step s - 1's wgmma are done: its stage may be refilled
    if (s > 0 && lane == 0) {
      mbar_arrive(empty((s - 1) % Cfg::STAGES));
      if (mcast) mbar_arrive_remote(empty((s - 1) % Cfg::STAGES), rank ^ 1u);
    }
    if (Cfg::PRODUCERS == 0) {
      // Without producers the consumers refill the stage step s - 1 used, once every
      // consumer warp is done with it; step s's wgmma runs meanwhile.
      const int next = s + Cfg::STAGES - 1;
      if (next < steps && loads) {
        if (next >= Cfg::STAGES)
          mbar_wait(empty(next % Cfg::STAGES), ((next / Cfg::STAGES) & 1) ^ 1);
        load(next % Cfg::STAGES, first_step + next, threadIdx.x);
      }
    }
  }
  wgmma_wait<0>();

  // Epilogue: every consumer is past its last wgmma before the ring is overwritten.
  consumers_sync(128 * Cfg::CONSUMERS);
  if (split_k) {
    reduce_split_tile<Cfg, I::kBf16Out, kEpi>(ring, acc, C, M, N, m0, n0, splits, epi, aligned,
                                              consumer, warp, lane);
  } else {
    store_tile<Cfg, I::kBf16Out, kEpi>(ring, acc, C, M, N, m0, n0, epi, aligned, consumer, warp,
                                       lane);
  }
  if (mcast) cluster_sync();  // neither CTA leaves while the other may still arrive on it
}

// f(e) for every e below n, spread over any launch geometry.
template <class F>
__device__ __forceinline__ void for_each_element(long long n, F&& f) {
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z * blockDim.x *
                            blockDim.y * blockDim.z;
  const long long block =
      (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const long long first = block * blockDim.x * blockDim.y * blockDim.z +
                          (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  for (long long e = first; e < n; e += threads) f(e);
}

// The references: one thread per element of C, double accumulation, rounded once to the
// output type.
template <class T>
__device__ __forceinline__ void gemm_naive(const T* __restrict__ A, const T* __restrict__ B,
                                           T* __restrict__ C, int M, int N, int K) {
  for_each_element(static_cast<long long>(M) * N, [&](long long e) {
    const long long m = e / N;
    const long long n = e % N;
    double s = 0.0;
    for (int k = 0; k < K; ++k) {
      s += static_cast<double>(static_cast<float>(A[m * K + k])) * static_cast<float>(B[k * N + n]);
    }
    C[e] = static_cast<T>(static_cast<float>(s));
  });
}

// bf16 with the bias + GELU epilogue: the exact sum plus the column's bias, through GELU's
// tanh form in double precision, rounded once.
__device__ __forceinline__ void gemm_naive_bias_gelu(const __nv_bfloat16* __restrict__ A,
                                                     const __nv_bfloat16* __restrict__ B,
                                                     const __nv_bfloat16* __restrict__ bias,
                                                     __nv_bfloat16* __restrict__ C, int M, int N,
                                                     int K) {
  for_each_element(static_cast<long long>(M) * N, [&](long long e) {
    const long long m = e / N;
    const long long n = e % N;
    double s = 0.0;
    for (int k = 0; k < K; ++k)
      s += static_cast<double>(static_cast<float>(A[m * K + k])) * static_cast<float>(B[k * N + n]);
    const double x = s + static_cast<double>(static_cast<float>(bias[n]));
    const double g = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    C[e] = __float2bfloat16(static_cast<float>(g));
  });
}

// FP8: B is [N, K]; the scales multiply the exact sum.
__device__ __forceinline__ void gemm_naive_fp8(const __nv_fp8_e4m3* __restrict__ A,
                                               const __nv_fp8_e4m3* __restrict__ B,
                                               __nv_bfloat16* __restrict__ C, float scale_a,
                                               float scale_b, int M, int N, int K) {
  for_each_element(static_cast<long long>(M) * N, [&](long long e) {
    const long long m = e / N;
    const long long n = e % N;
    double s = 0.0;
    for (int k = 0; k < K; ++k)
      s += static_cast<double>(static_cast<float>(A[m * K + k])) * static_cast<float>(B[n * K + k]);
    C[e] = __float2bfloat16(static_cast<float>(s * scale_a * scale_b));
  });
}

}  // namespace gemm_sm90_detail

using G90F16Config =
    gemm_sm90_detail::Config<G90_F16_BN, G90_F16_CONSUMERS, G90_F16_MW, G90_F16_STAGES,
                             G90_F16_GROUP_M, G90_F16_PRODUCERS, G90_F16_TMA, G90_F16_SPLIT,
                             G90_F16_PERSISTENT, G90_F16_MCAST>;
using G90Bf16Config =
    gemm_sm90_detail::Config<G90_BF16_BN, G90_BF16_CONSUMERS, G90_BF16_MW, G90_BF16_STAGES,
                             G90_BF16_GROUP_M, G90_BF16_PRODUCERS, G90_BF16_TMA, G90_BF16_SPLIT,
                             G90_BF16_PERSISTENT, G90_BF16_MCAST>;
using G90BgConfig = gemm_sm90_detail::Config<G90_BG_BN, G90_BG_CONSUMERS, G90_BG_MW, G90_BG_STAGES,
                                             G90_BG_GROUP_M, G90_BG_PRODUCERS, G90_BG_TMA,
                                             G90_BG_SPLIT, G90_BG_PERSISTENT, G90_BG_MCAST>;
using G90Fp8Config =
    gemm_sm90_detail::Config<G90_FP8_BN, G90_FP8_CONSUMERS, G90_FP8_MW, G90_FP8_STAGES,
                             G90_FP8_GROUP_M, G90_FP8_PRODUCERS, G90_FP8_TMA, G90_FP8_SPLIT,
                             G90_FP8_PERSISTENT, G90_FP8_MCAST>;

// clang-format off
/* @kernelevo
id: gemm_sm90_f16
kernel: gemm_sm90_f16
arch: sm_90a
params:
  G90_F16_BN: [64, 128, 192, 256]
  G90_F16_CONSUMERS: [1, 2, 3]
  G90_F16_MW: [1, 2]
  G90_F16_STAGES: [2, 3, 4, 5, 6]
  G90_F16_GROUP_M: [1, 8, 16]
  G90_F16_PRODUCERS: [0, 1]
  G90_F16_TMA: [0, 1]
  G90_F16_SPLIT: [1, 2, 4, 8]
  G90_F16_PERSISTENT: [0, 1]
  G90_F16_MCAST: [1, 2]
let:
  BM: "64 * G90_F16_CONSUMERS * G90_F16_MW"
  STAGE_BYTES: "64 * G90_F16_CONSUMERS * G90_F16_MW * 128 + 128 * G90_F16_BN"
  THREADS: "128 * (G90_F16_CONSUMERS + G90_F16_PRODUCERS)"
  TILES: "ceil_div(M, BM) * ceil_div(N, G90_F16_BN)"
  SPLIT_CTAS: "(TILES < sm_count) * (G90_F16_SPLIT - 1) + 1"
  # A persistent launch: a CTA for each SM (sm_count: 132 on an H100 or H200), or each tile if fewer;
  # split-K where the tiles are fewer than the SMs, as the launcher below decides it.
  STAGING: "G90_F16_PERSISTENT * BM * G90_F16_BN * 2"
  # With multicast, pairs of tile rows (an odd last row gets a partner past M).
  PAIRED_TILES: "G90_F16_MCAST * ceil_div(ceil_div(M, BM), G90_F16_MCAST) * ceil_div(N, G90_F16_BN)"
  CTAS: "G90_F16_PERSISTENT * min(TILES, sm_count) + (1 - G90_F16_PERSISTENT) * PAIRED_TILES * SPLIT_CTAS"
constraints:
  - "G90_F16_MW * G90_F16_BN <= 256"
  - "G90_F16_STAGES * STAGE_BYTES + STAGING + 16 * G90_F16_STAGES + 1024 <= 227 * 1024"
  - "BM * (2 * G90_F16_BN + 16) <= G90_F16_STAGES * STAGE_BYTES"
  - "(G90_F16_MW * G90_F16_BN / 2 + 40) * THREADS <= 65536"
  - "G90_F16_SPLIT == 1 || G90_F16_PRODUCERS == 0"
  - "G90_F16_PERSISTENT == 0 || (G90_F16_PRODUCERS == 1 && G90_F16_SPLIT == 1)"
  - "G90_F16_MCAST == 1 || (G90_F16_PRODUCERS == 1 && G90_F16_TMA == 1 && G90_F16_SPLIT == 1 && G90_F16_PERSISTENT == 0 && G90_F16_BN % 128 == 0)"
  - "G90_F16_SPLIT == 1 || BM * (4 * G90_F16_BN + 16) <= G90_F16_STAGES * STAGE_BYTES"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
  - {M: 16, N: 4096, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
  - {M: 16, N: 512, K: 4096}
args:
  - {name: A, type: "const half*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const half*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: C, type: "half*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
  - {name: map_a, tensor_map: {of: A, dims: [K, M], box: [64, "64 * G90_F16_MW"], swizzle: 128}}
  - {name: map_b, tensor_map: {of: B, dims: [N, K], box: [64, 64], swizzle: 128}}
  - {name: map_c, tensor_map: {of: C, dims: [N, M], box: [64, "64 * G90_F16_MW"], swizzle: 128}}
launch:
  grid: ["CTAS"]
  block: ["THREADS"]
  shared_bytes: "G90_F16_STAGES * STAGE_BYTES + STAGING + 16 * G90_F16_STAGES + 1024"
  cluster: "SPLIT_CTAS * G90_F16_MCAST"
reference: gemm_sm90_f16_naive
defines: ["G90_ONLY=1"]
tolerance: {rtol: 2e-3, atol: 2e-3}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N + M*N)*2"}
*/
// clang-format on
#if G90_HAS(1)
extern "C" __global__ void __launch_bounds__(G90F16Config::kThreads, 1)
    gemm_sm90_f16(const __half* __restrict__ A, const __half* __restrict__ B,
                  __half* __restrict__ C, int M, int N, int K,
                  const __grid_constant__ TensorMap map_a, const __grid_constant__ TensorMap map_b,
                  const __grid_constant__ TensorMap map_c) {
  gemm_sm90_detail::gemm_sm90<G90F16Config, gemm_sm90_detail::In::f16>(
      reinterpret_cast<const unsigned char*>(A), reinterpret_cast<const unsigned char*>(B),
      reinterpret_cast<unsigned short*>(C), M, N, K, {nullptr, 1.0f}, map_a, map_b, map_c);
}
#endif

// clang-format off
/* @kernelevo
id: gemm_sm90_bf16
kernel: gemm_sm90_bf16
arch: sm_90a
params:
  G90_BF16_BN: [64, 128, 192, 256]
  G90_BF16_CONSUMERS: [1, 2, 3]
  G90_BF16_MW: [1, 2]
  G90_BF16_STAGES: [2, 3, 4, 5, 6]
  G90_BF16_GROUP_M: [1, 8, 16]
  G90_BF16_PRODUCERS: [0, 1]
  G90_BF16_TMA: [0, 1]
  G90_BF16_SPLIT: [1, 2, 4, 8]
  G90_BF16_PERSISTENT: [0, 1]
  G90_BF16_MCAST: [1, 2]
let:
  BM: "64 * G90_BF16_CONSUMERS * G90_BF16_MW"
  STAGE_BYTES: "64 * G90_BF16_CONSUMERS * G90_BF16_MW * 128 + 128 * G90_BF16_BN"
  THREADS: "128 * (G90_BF16_CONSUMERS + G90_BF16_PRODUCERS)"
  TILES: "ceil_div(M, BM) * ceil_div(N, G90_BF16_BN)"
  SPLIT_CTAS: "(TILES < sm_count) * (G90_BF16_SPLIT - 1) + 1"
  # A persistent launch: a CTA for each SM (sm_count: 132 on an H100 or H200), or each tile if fewer;
  # split-K where the tiles are fewer than the SMs, as the launcher below decides it.
  STAGING: "G90_BF16_PERSISTENT * BM * G90_BF16_BN * 2"
  # With multicast, pairs of tile rows (an odd last row gets a partner past M).
  PAIRED_TILES: "G90_BF16_MCAST * ceil_div(ceil_div(M, BM), G90_BF16_MCAST) * ceil_div(N, G90_BF16_BN)"
  CTAS: "G90_BF16_PERSISTENT * min(TILES, sm_count) + (1 - G90_BF16_PERSISTENT) * PAIRED_TILES * SPLIT_CTAS"
constraints:
  - "G90_BF16_MW * G90_BF16_BN <= 256"
  - "G90_BF16_STAGES * STAGE_BYTES + STAGING + 16 * G90_BF16_STAGES + 1024 <= 227 * 1024"
  - "BM * (2 * G90_BF16_BN + 16) <= G90_BF16_STAGES * STAGE_BYTES"
  - "(G90_BF16_MW * G90_BF16_BN / 2 + 40) * THREADS <= 65536"
  - "G90_BF16_SPLIT == 1 || G90_BF16_PRODUCERS == 0"
  - "G90_BF16_PERSISTENT == 0 || (G90_BF16_PRODUCERS == 1 && G90_BF16_SPLIT == 1)"
  - "G90_BF16_MCAST == 1 || (G90_BF16_PRODUCERS == 1 && G90_BF16_TMA == 1 && G90_BF16_SPLIT == 1 && G90_BF16_PERSISTENT == 0 && G90_BF16_BN % 128 == 0)"
  - "G90_BF16_SPLIT == 1 || BM * (4 * G90_BF16_BN + 16) <= G90_BF16_STAGES * STAGE_BYTES"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
  - {M: 16, N: 4096, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
  - {M: 16, N: 512, K: 4096}
args:
  - {name: A, type: "const bfloat16*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const bfloat16*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: C, type: "bfloat16*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
  - {name: map_a, tensor_map: {of: A, dims: [K, M], box: [64, "64 * G90_BF16_MW"], swizzle: 128}}
  - {name: map_b, tensor_map: {of: B, dims: [N, K], box: [64, 64], swizzle: 128}}
  - {name: map_c, tensor_map: {of: C, dims: [N, M], box: [64, "64 * G90_BF16_MW"], swizzle: 128}}
launch:
  grid: ["CTAS"]
  block: ["THREADS"]
  shared_bytes: "G90_BF16_STAGES * STAGE_BYTES + STAGING + 16 * G90_BF16_STAGES + 1024"
  cluster: "SPLIT_CTAS * G90_BF16_MCAST"
reference: gemm_sm90_bf16_naive
defines: ["G90_ONLY=2"]
tolerance: {rtol: 1e-2, atol: 1e-2}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N + M*N)*2"}
*/
// clang-format on
#if G90_HAS(2)
extern "C" __global__ void __launch_bounds__(G90Bf16Config::kThreads, 1)
    gemm_sm90_bf16(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                   __nv_bfloat16* __restrict__ C, int M, int N, int K,
                   const __grid_constant__ TensorMap map_a, const __grid_constant__ TensorMap map_b,
                  const __grid_constant__ TensorMap map_c) {
  gemm_sm90_detail::gemm_sm90<G90Bf16Config, gemm_sm90_detail::In::bf16>(
      reinterpret_cast<const unsigned char*>(A), reinterpret_cast<const unsigned char*>(B),
      reinterpret_cast<unsigned short*>(C), M, N, K, {nullptr, 1.0f}, map_a, map_b, map_c);
}
#endif

// bf16 with the epilogue of a transformer MLP's first projection: C = GELU(A @ B + bias), the
// bias a bf16 row of N, GELU's tanh form (as torch._addmm_activation(bias, A, B,
// use_gelu=True), cuBLASLt's GELU_BIAS epilogue, computes it).
// clang-format off
/* @kernelevo
id: gemm_sm90_bf16_gelu
kernel: gemm_sm90_bf16_gelu
arch: sm_90a
params:
  G90_BG_BN: [64, 128, 192, 256]
  G90_BG_CONSUMERS: [1, 2, 3]
  G90_BG_MW: [1, 2]
  G90_BG_STAGES: [2, 3, 4, 5, 6]
  G90_BG_GROUP_M: [1, 8, 16]
  G90_BG_PRODUCERS: [0, 1]
  G90_BG_TMA: [0, 1]
  G90_BG_SPLIT: [1, 2, 4, 8]
  G90_BG_PERSISTENT: [0, 1]
  G90_BG_MCAST: [1, 2]
let:
  BM: "64 * G90_BG_CONSUMERS * G90_BG_MW"
  STAGE_BYTES: "64 * G90_BG_CONSUMERS * G90_BG_MW * 128 + 128 * G90_BG_BN"
  THREADS: "128 * (G90_BG_CONSUMERS + G90_BG_PRODUCERS)"
  TILES: "ceil_div(M, BM) * ceil_div(N, G90_BG_BN)"
  SPLIT_CTAS: "(TILES < sm_count) * (G90_BG_SPLIT - 1) + 1"
  # A persistent launch: a CTA for each SM (sm_count: 132 on an H100 or H200), or each tile if fewer;
  # split-K where the tiles are fewer than the SMs, as the launcher below decides it.
  STAGING: "G90_BG_PERSISTENT * BM * G90_BG_BN * 2"
  # With multicast, pairs of tile rows (an odd last row gets a partner past M).
  PAIRED_TILES: "G90_BG_MCAST * ceil_div(ceil_div(M, BM), G90_BG_MCAST) * ceil_div(N, G90_BG_BN)"
  CTAS: "G90_BG_PERSISTENT * min(TILES, sm_count) + (1 - G90_BG_PERSISTENT) * PAIRED_TILES * SPLIT_CTAS"
constraints:
  - "G90_BG_MW * G90_BG_BN <= 256"
  - "G90_BG_STAGES * STAGE_BYTES + STAGING + 16 * G90_BG_STAGES + 1024 <= 227 * 1024"
  - "BM * (2 * G90_BG_BN + 16) <= G90_BG_STAGES * STAGE_BYTES"
  - "(G90_BG_MW * G90_BG_BN / 2 + 40) * THREADS <= 65536"
  - "G90_BG_SPLIT == 1 || G90_BG_PRODUCERS == 0"
  - "G90_BG_PERSISTENT == 0 || (G90_BG_PRODUCERS == 1 && G90_BG_SPLIT == 1)"
  - "G90_BG_MCAST == 1 || (G90_BG_PRODUCERS == 1 && G90_BG_TMA == 1 && G90_BG_SPLIT == 1 && G90_BG_PERSISTENT == 0 && G90_BG_BN % 128 == 0)"
  - "G90_BG_SPLIT == 1 || BM * (4 * G90_BG_BN + 16) <= G90_BG_STAGES * STAGE_BYTES"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
  - {M: 16, N: 4096, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
  - {M: 16, N: 512, K: 4096}
args:
  - {name: A, type: "const bfloat16*", count: "M*K", init: {uniform: [-1, 1]}}
  - {name: B, type: "const bfloat16*", count: "K*N", init: {uniform: [-1, 1]}}
  - {name: bias, type: "const bfloat16*", count: "N", init: {uniform: [-4, 4]}}
  - {name: C, type: "bfloat16*", count: "M*N", output: true}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
  - {name: map_a, tensor_map: {of: A, dims: [K, M], box: [64, "64 * G90_BG_MW"], swizzle: 128}}
  - {name: map_b, tensor_map: {of: B, dims: [N, K], box: [64, 64], swizzle: 128}}
  - {name: map_c, tensor_map: {of: C, dims: [N, M], box: [64, "64 * G90_BG_MW"], swizzle: 128}}
launch:
  grid: ["CTAS"]
  block: ["THREADS"]
  shared_bytes: "G90_BG_STAGES * STAGE_BYTES + STAGING + 16 * G90_BG_STAGES + 1024"
  cluster: "SPLIT_CTAS * G90_BG_MCAST"
reference: gemm_sm90_bf16_gelu_naive
defines: ["G90_ONLY=4"]
tolerance: {rtol: 1e-2, atol: 1e-2}
metrics: {flops: "2*M*N*K", bytes: "(M*K + K*N + M*N + N)*2"}
*/
// clang-format on
#if G90_HAS(4)
extern "C" __global__ void __launch_bounds__(G90BgConfig::kThreads, 1)
    gemm_sm90_bf16_gelu(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                        const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ C,
                        int M, int N, int K, const __grid_constant__ TensorMap map_a,
                        const __grid_constant__ TensorMap map_b,
                        const __grid_constant__ TensorMap map_c) {
  gemm_sm90_detail::gemm_sm90<G90BgConfig, gemm_sm90_detail::In::bf16,
                              gemm_sm90_detail::Epi::bias_gelu>(
      reinterpret_cast<const unsigned char*>(A), reinterpret_cast<const unsigned char*>(B),
      reinterpret_cast<unsigned short*>(C), M, N, K,
      {reinterpret_cast<const unsigned short*>(bias), 1.0f}, map_a, map_b, map_c);
}
#endif

// clang-format off
/* @kernelevo
id: gemm_sm90_fp8
kernel: gemm_sm90_fp8
arch: sm_90a
params:
  G90_FP8_BN: [64, 128, 192, 256]
  G90_FP8_CONSUMERS: [1, 2, 3]
  G90_FP8_MW: [1, 2]
  G90_FP8_STAGES: [2, 3, 4, 5, 6]
  G90_FP8_GROUP_M: [1, 8, 16]
  G90_FP8_PRODUCERS: [0, 1]
  G90_FP8_TMA: [0, 1]
  G90_FP8_SPLIT: [1, 2, 4, 8]
  G90_FP8_PERSISTENT: [0, 1]
  G90_FP8_MCAST: [1, 2]
let:
  BM: "64 * G90_FP8_CONSUMERS * G90_FP8_MW"
  STAGE_BYTES: "64 * G90_FP8_CONSUMERS * G90_FP8_MW * 128 + 128 * G90_FP8_BN"
  THREADS: "128 * (G90_FP8_CONSUMERS + G90_FP8_PRODUCERS)"
  TILES: "ceil_div(M, BM) * ceil_div(N, G90_FP8_BN)"
  SPLIT_CTAS: "(TILES < sm_count) * (G90_FP8_SPLIT - 1) + 1"
  # A persistent launch: a CTA for each SM (sm_count: 132 on an H100 or H200), or each tile if fewer;
  # split-K where the tiles are fewer than the SMs, as the launcher below decides it.
  STAGING: "G90_FP8_PERSISTENT * BM * G90_FP8_BN * 2"
  # With multicast, pairs of tile rows (an odd last row gets a partner past M).
  PAIRED_TILES: "G90_FP8_MCAST * ceil_div(ceil_div(M, BM), G90_FP8_MCAST) * ceil_div(N, G90_FP8_BN)"
  CTAS: "G90_FP8_PERSISTENT * min(TILES, sm_count) + (1 - G90_FP8_PERSISTENT) * PAIRED_TILES * SPLIT_CTAS"
constraints:
  - "G90_FP8_MW * G90_FP8_BN <= 256"
  - "G90_FP8_STAGES * STAGE_BYTES + STAGING + 16 * G90_FP8_STAGES + 1024 <= 227 * 1024"
  - "BM * (2 * G90_FP8_BN + 16) <= G90_FP8_STAGES * STAGE_BYTES"
  - "(G90_FP8_MW * G90_FP8_BN / 2 + 40) * THREADS <= 65536"
  - "G90_FP8_SPLIT == 1 || G90_FP8_PRODUCERS == 0"
  - "G90_FP8_PERSISTENT == 0 || (G90_FP8_PRODUCERS == 1 && G90_FP8_SPLIT == 1)"
  - "G90_FP8_MCAST == 1 || (G90_FP8_PRODUCERS == 1 && G90_FP8_TMA == 1 && G90_FP8_SPLIT == 1 && G90_FP8_PERSISTENT == 0 && G90_FP8_BN % 128 == 0)"
  - "G90_FP8_SPLIT == 1 || BM * (4 * G90_FP8_BN + 16) <= G90_FP8_STAGES * STAGE_BYTES"
problems:
  - {M: 4096, N: 4096, K: 4096}
  - {M: 8192, N: 1024, K: 4096}
  - {M: 16, N: 4096, K: 4096}
validate:
  - {M: 129, N: 67, K: 33}
  - {M: 200, N: 136, K: 72}
  - {M: 3, N: 1000, K: 24}
  - {M: 300, N: 40, K: 1000}
  - {M: 16, N: 512, K: 4096}
  - {M: 129, N: 264, K: 160}
args:
  - {name: A, type: "const __nv_fp8_e4m3*", count: "M*K", init: {randint: [-4, 5]}}
  - {name: B, type: "const __nv_fp8_e4m3*", count: "N*K", init: {randint: [-4, 5]}}
  - {name: C, type: "bfloat16*", count: "M*N", output: true}
  - {name: scale_a, type: "const float*", count: 1, init: {uniform: [0.5, 2]}}
  - {name: scale_b, type: "const float*", count: 1, init: {uniform: [0.5, 2]}}
  - {name: M, type: int, value: M}
  - {name: N, type: int, value: N}
  - {name: K, type: int, value: K}
  - {name: map_a, tensor_map: {of: A, dims: [K, M], box: [128, "64 * G90_FP8_MW"], swizzle: 128}}
  - {name: map_b, tensor_map: {of: B, dims: [K, N], box: [128, 64], swizzle: 128}}
  - {name: map_c, tensor_map: {of: C, dims: [N, M], box: [64, "64 * G90_FP8_MW"], swizzle: 128}}
launch:
  grid: ["CTAS"]
  block: ["THREADS"]
  shared_bytes: "G90_FP8_STAGES * STAGE_BYTES + STAGING + 16 * G90_FP8_STAGES + 1024"
  cluster: "SPLIT_CTAS * G90_FP8_MCAST"
reference: gemm_sm90_fp8_naive
defines: ["G90_ONLY=3"]
tolerance: {rtol: 1e-2, atol: 1e-2}
metrics: {flops: "2*M*N*K", bytes: "M*K + N*K + M*N*2"}
*/
// clang-format on
#if G90_HAS(3)
extern "C" __global__ void __launch_bounds__(G90Fp8Config::kThreads, 1)
    gemm_sm90_fp8(const __nv_fp8_e4m3* __restrict__ A, const __nv_fp8_e4m3* __restrict__ B,
                  __nv_bfloat16* __restrict__ C, const float* __restrict__ scale_a,
                  const float* __restrict__ scale_b, int M, int N, int K,
                  const __grid_constant__ TensorMap map_a, const __grid_constant__ TensorMap map_b,
                  const __grid_constant__ TensorMap map_c) {
  gemm_sm90_detail::gemm_sm90<G90Fp8Config, gemm_sm90_detail::In::e4m3>(
      reinterpret_cast<const unsigned char*>(A), reinterpret_cast<const unsigned char*>(B),
      reinterpret_cast<unsigned short*>(C), M, N, K, {nullptr, *scale_a * *scale_b}, map_a,
      map_b, map_c);
}
#endif

// The references take the tensor maps too (one argument list) and ignore them.
#if G90_HAS(1)
extern "C" __global__ void gemm_sm90_f16_naive(const __half* __restrict__ A,
                                               const __half* __restrict__ B, __half* __restrict__ C,
                                               int M, int N, int K, const __grid_constant__ TensorMap,
                                               const __grid_constant__ TensorMap,
                                               const __grid_constant__ TensorMap) {
  gemm_sm90_detail::gemm_naive(A, B, C, M, N, K);
}
#endif

#if G90_HAS(2)
extern "C" __global__ void gemm_sm90_bf16_naive(const __nv_bfloat16* __restrict__ A,
                                                const __nv_bfloat16* __restrict__ B,
                                                __nv_bfloat16* __restrict__ C, int M, int N,
                                                int K, const __grid_constant__ TensorMap,
                                                const __grid_constant__ TensorMap,
                                                const __grid_constant__ TensorMap) {
  gemm_sm90_detail::gemm_naive(A, B, C, M, N, K);
}
#endif

#if G90_HAS(4)
extern "C" __global__ void gemm_sm90_bf16_gelu_naive(
    const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
    const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ C, int M, int N, int K,
    const __grid_constant__ TensorMap, const __grid_constant__ TensorMap,
    const __grid_constant__ TensorMap) {
  gemm_sm90_detail::gemm_naive_bias_gelu(A, B, bias, C, M, N, K);
}
#endif

#if G90_HAS(3)
extern "C" __global__ void gemm_sm90_fp8_naive(const __nv_fp8_e4m3* __restrict__ A,
                                               const __nv_fp8_e4m3* __restrict__ B,
                                               __nv_bfloat16* __restrict__ C,
                                               const float* __restrict__ scale_a,
                                               const float* __restrict__ scale_b, int M, int N,
                                               int K, const __grid_constant__ TensorMap,
                                               const __grid_constant__ TensorMap,
                                               const __grid_constant__ TensorMap) {
  gemm_sm90_detail::gemm_naive_fp8(A, B, C, *scale_a, *scale_b, M, N, K);
}
#endif

// ---------------------------------------------------------------------------------------------
// Launchers for a program (host code, compiled by nvcc, not by NVRTC): each kernel launched as
// its spec launches it, with this build's parameter values: the tensor maps encoded for the
// caller's buffers as kernelevo's runner encodes them (through the runtime's driver entry
// point, so the program needs no -lcuda), a persistent grid of one CTA per SM of the current
// device, and split-K's clusters when the tiles are fewer than the SMs. They return the launch's
// error, or cudaErrorNotSupported where the driver has no cuTensorMapEncodeTiled. A copy made
// by `kernelevo init --template gemm_sm90 --dispatch M` lists them in its `dispatch.entries`,
// so each compiled variant has its own (`gemm_sm90_f16_launch_kev<K>`), which a program picks
// with `kernelevo::dispatch::gemm_sm90_f16(M)` (docs/build-integration.md).
#if !defined(__CUDACC_RTC__)
#include <cudaTypedefs.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace gemm_sm90_host {

// Raises `kernel`'s dynamic shared-memory limit on the current device to at least `bytes`,
// asking the driver only when a launch needs more than this process already set there (the
// attribute stays set), so repeated launches do not pay for it.
inline cudaError_t allow_shared(const void* kernel, long long bytes) {
  int device = 0;
  const cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, long long> set;
  const std::lock_guard<std::mutex> lock(mutex);
  long long& have = set[{kernel, device}];
  if (bytes <= have) return cudaSuccess;
  const cudaError_t r = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes));
  if (r == cudaSuccess) have = bytes;
  return r;
}

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

// The map of a dense row-major [outer, inner] tensor of `bytes`-byte elements at `base`, boxes
// of box_inner x box_outer in the 128-byte swizzle, zeros out of bounds; all zeros where the
// driver cannot describe the tensor (an empty or too large dimension, rows not a multiple of
// 16 bytes, an unaligned base), which the kernels recognise by the same rule.
inline cudaError_t encode_2d(TensorMap& map, CUtensorMapDataType type, const void* base,
                             unsigned bytes, long long inner, long long outer, unsigned box_inner,
                             unsigned box_outer) {
  map = TensorMap{};
  const unsigned long long row_bytes = static_cast<unsigned long long>(inner) * bytes;
  if (inner < 1 || outer < 1 || inner > (1ll << 32) || outer > (1ll << 32) || row_bytes % 16 != 0 ||
      row_bytes >= (1ull << 40) || reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return cudaSuccess;
  const auto encode = tensor_map_encoder();
  if (!encode) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r =
      encode(reinterpret_cast<CUtensorMap*>(&map), type, 2, const_cast<void*>(base), dims, strides,
             box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// A, B and C's maps for an [M, K] x B -> [M, N] product: B as [K, N], or as [N, K] when
// kBKMajor (fp8). The boxes are the spec's.
template <class Cfg, bool kBKMajor>
inline cudaError_t encode_maps(TensorMap (&maps)[3], CUtensorMapDataType in_type, unsigned in_bytes,
                               CUtensorMapDataType out_type, const void* A, const void* B,
                               const void* C, int M, int N, int K) {
  const unsigned k_box = 128 / in_bytes;  // one 128-byte swizzled row of K
  cudaError_t e = encode_2d(maps[0], in_type, A, in_bytes, K, M, k_box, 64 * Cfg::MW);
  if (e == cudaSuccess)
    e = kBKMajor ? encode_2d(maps[1], in_type, B, in_bytes, K, N, k_box, 64)
                 : encode_2d(maps[1], in_type, B, in_bytes, N, K, 64, 64);
  if (e == cudaSuccess) e = encode_2d(maps[2], out_type, C, 2, N, M, 64, 64 * Cfg::MW);
  return e;
}

// `kernel` over an M x N output with Cfg's geometry on `stream`: tiles of BM x BN, a CTA for
// each (SPLIT of them in a cluster while the tiles are fewer than the SMs; with MCAST the
// tiles of a pair of rows in a cluster of two), or with PERSISTENT one for each SM, at most one
// a tile.
template <class Cfg, class... Params, class... Args>
inline cudaError_t launch(void (*kernel)(Params...), int M, int N, cudaStream_t stream,
                          Args&&... args) {
  if (M <= 0 || N <= 0) return cudaSuccess;
  const long long tiles_m = (M + Cfg::BM - 1) / Cfg::BM;
  const long long tiles_n = (N + Cfg::BN - 1) / Cfg::BN;
  const long long tiles = tiles_m * tiles_n;
  int device = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  const int split = !Cfg::PERSISTENT && tiles < sms ? Cfg::SPLIT : 1;
  // With multicast, pairs of tile rows in clusters of two (an odd last row gets a partner).
  const long long paired = (tiles_m + Cfg::MCAST - 1) / Cfg::MCAST * Cfg::MCAST * tiles_n;
  const long long ctas = Cfg::PERSISTENT ? (tiles < sms ? tiles : sms) : paired * split;
  const int cluster_ctas = split * Cfg::MCAST;
  if (ctas > 0x7fffffffll) return cudaErrorInvalidConfiguration;
  const unsigned shared =
      Cfg::STAGES * Cfg::kStageBytes + Cfg::kStagingBytes + 16 * Cfg::STAGES + 1024;
  e = allow_shared(reinterpret_cast<const void*>(kernel), shared);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(ctas));
  config.blockDim = dim3(Cfg::kThreads);
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  if (cluster_ctas > 1) {
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = static_cast<unsigned>(cluster_ctas);
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace gemm_sm90_host

#if G90_HAS(1)
// C[M, N] = A[M, K] @ B[K, N], fp16, row-major.
extern "C" cudaError_t gemm_sm90_f16_launch(const __half* A, const __half* B, __half* C, int M,
                                            int N, int K, cudaStream_t stream) {
  TensorMap maps[3];
  const cudaError_t e = gemm_sm90_host::encode_maps<G90F16Config, false>(
      maps, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, A, B, C, M, N, K);
  if (e != cudaSuccess) return e;
  return gemm_sm90_host::launch<G90F16Config>(gemm_sm90_f16, M, N, stream, A, B, C, M, N, K,
                                              maps[0], maps[1], maps[2]);
}
#endif

#if G90_HAS(2)
// C[M, N] = A[M, K] @ B[K, N], bf16, row-major.
extern "C" cudaError_t gemm_sm90_bf16_launch(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                             __nv_bfloat16* C, int M, int N, int K,
                                             cudaStream_t stream) {
  TensorMap maps[3];
  const cudaError_t e = gemm_sm90_host::encode_maps<G90Bf16Config, false>(
      maps, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, A, B, C, M, N,
      K);
  if (e != cudaSuccess) return e;
  return gemm_sm90_host::launch<G90Bf16Config>(gemm_sm90_bf16, M, N, stream, A, B, C, M, N, K,
                                               maps[0], maps[1], maps[2]);
}
#endif

#if G90_HAS(4)
// C[M, N] = GELU_tanh(A[M, K] @ B[K, N] + bias[N]), bf16, row-major.
extern "C" cudaError_t gemm_sm90_bf16_gelu_launch(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                  const __nv_bfloat16* bias, __nv_bfloat16* C,
                                                  int M, int N, int K, cudaStream_t stream) {
  TensorMap maps[3];
  const cudaError_t e = gemm_sm90_host::encode_maps<G90BgConfig, false>(
      maps, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, A, B, C, M, N,
      K);
  if (e != cudaSuccess) return e;
  return gemm_sm90_host::launch<G90BgConfig>(gemm_sm90_bf16_gelu, M, N, stream, A, B, bias, C, M, N,
                                             K, maps[0], maps[1], maps[2]);
}
#endif

#if G90_HAS(3)
// C[M, N] = scale_a * scale_b * A[M, K] @ B[N, K]^T, e4m3 in, bf16 out; the scales are device
// pointers to one float each.
extern "C" cudaError_t gemm_sm90_fp8_launch(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B,
                                            __nv_bfloat16* C, const float* scale_a,
                                            const float* scale_b, int M, int N, int K,
                                            cudaStream_t stream) {
  TensorMap maps[3];
  const cudaError_t e = gemm_sm90_host::encode_maps<G90Fp8Config, true>(
      maps, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, A, B, C, M, N, K);
  if (e != cudaSuccess) return e;
  return gemm_sm90_host::launch<G90Fp8Config>(gemm_sm90_fp8, M, N, stream, A, B, C, scale_a,
                                              scale_b, M, N, K, maps[0], maps[1], maps[2]);
}
#endif
#endif  // !__CUDACC_RTC__
