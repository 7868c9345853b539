// Forward attention, bf16 in and out, fp32 accumulation and softmax (FlashAttention style:
// one pass over the keys with an online softmax), grouped-query, causal or not:
//   q[batch, seq_q, heads, head_dim], k and v [batch, seq_k, kv_heads, head_dim], heads a
//   multiple of kv_heads (query head h reads key/value head h / (heads / kv_heads)),
//   o[b, i, h, :] = sum_j softmax_j(q[b, i, h, :] . k[b, j, h', :] / sqrt(head_dim)) v[b, j, h', :]
//   lse[b, h, i]  = log(sum_j exp(q . k / sqrt(head_dim)))   (natural log, for a backward pass)
// causal = 1 masks key j > i + seq_k - seq_q (the mask aligned to the last key, as
// FlashAttention 2 and a decode step against a KV cache do; for seq_q == seq_k it is the usual
// lower triangle, PyTorch's is_causal). head_dim must be 64 or 128 (other sizes write nothing);
// q, k, v and o 16-byte aligned.
//
// Two kernels share one block body:
// - attention_fwd_bf16 (prefill, ATT_*): a block takes BM = 16 * ATT_WARPS_M * ATT_M_TILES
//   query rows and walks the keys in tiles of ATT_BN * ATT_WARPS_N keys, ATT_STAGES tiles of K
//   and V in flight through cp.async; warp (wm, wn) multiplies its ATT_M_TILES 16-row tiles by
//   its ATT_BN keys of each tile with mma.sync m16n8k16 (ldmatrix from XOR-swizzled shared
//   rows), keeps P in registers as the A operand of P V, and warps along the keys merge their
//   partial softmax states through shared memory at the end.
// - attention_decode_bf16 (decode, ATT_DEC_*): one or a few query tokens against a long KV
//   cache (FlashDecoding): the keys are split over several blocks per query block (as many as
//   bring the grid to at most ATT_DEC_BLOCKS blocks, at least one, each at least ATT_DEC_MIN_TILES
//   tiles of keys, at most 64), each writes its normalised partial output and log-sum-exp to
//   scratch, and the last block to finish (an atomic ticket) merges them; the count follows the
//   shape, so one configuration serves a batch of 1 and of 32. With ATT_DEC_CLUSTER = N > 1
//   (sm_90) the splits come in thread-block clusters of N, which merge their rows through
//   distributed shared memory first (all N CTAs at once), so the last block merges a part a
//   cluster, and a launch of one cluster a query block needs no scratch and no last block.
// ATT_GROUP_ROWS 1 (always for decode) makes a block's rows the query heads of one key/value
// head, position by position (rows of consecutive heads are contiguous in q), so every K and V
// tile read serves all heads of the group; 0 gives each query head its own blocks.
// Causal blocks run in reverse order so the longest start first.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef ATT_WARPS_M
#define ATT_WARPS_M 4
#endif
#ifndef ATT_WARPS_N
#define ATT_WARPS_N 1
#endif
#ifndef ATT_M_TILES
#define ATT_M_TILES 2
#endif
#ifndef ATT_BN
#define ATT_BN 64
#endif
#ifndef ATT_STAGES
#define ATT_STAGES 2
#endif
#ifndef ATT_GROUP_ROWS
#define ATT_GROUP_ROWS 0
#endif
#ifndef ATT_MIN_BLOCKS
#define ATT_MIN_BLOCKS 1
#endif
#ifndef ATT_DEC_WARPS_N
#define ATT_DEC_WARPS_N 8
#endif
#ifndef ATT_DEC_BN
#define ATT_DEC_BN 32
#endif
#ifndef ATT_DEC_STAGES
#define ATT_DEC_STAGES 1
#endif
#ifndef ATT_DEC_BLOCKS
#define ATT_DEC_BLOCKS 132
#endif
#ifndef ATT_DEC_MIN_TILES
#define ATT_DEC_MIN_TILES 1
#endif
#ifndef ATT_DEC_CLUSTER
#define ATT_DEC_CLUSTER 1
#endif
#ifndef ATT_DEC_COMPACT
#define ATT_DEC_COMPACT 1
#endif

// A spec's `defines` sets ATT_ONLY (1: the FlashAttention 2 kernels, 2 and 3: the sm_90a ones),
// so a tune compiles only its group of kernels and their references; a build, without it, all.
#ifdef ATT_ONLY
#define ATT_HAS(kernels) (ATT_ONLY == (kernels))
#else
#define ATT_HAS(kernels) 1
#endif

static_assert(
    ATT_DEC_BLOCKS >= 1 && ATT_DEC_MIN_TILES >= 1,
    "ATT_DEC_BLOCKS and ATT_DEC_MIN_TILES (the decode launch's split count) are positive");
static_assert(ATT_DEC_CLUSTER == 1 || ATT_DEC_CLUSTER == 2 || ATT_DEC_CLUSTER == 4 ||
                  ATT_DEC_CLUSTER == 8,
              "ATT_DEC_CLUSTER: 1, or a portable cluster size (2, 4, 8)");

extern __shared__ __align__(128) unsigned char attention_smem[];

namespace attention_detail {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
// NVRTC has no <math.h>, so no INFINITY.
#define ATT_NEG_INF (-__int_as_float(0x7f800000))

struct Geometry {
  int batch, seq_q, seq_k, heads, kv_heads, group, causal;
};

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Copies 16 bytes, or writes 16 zero bytes when `valid` is false (src is not read then).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 16 : 0));
}
// atomicAdd at GPU scope with acquire-release semantics; returns the old value.
__device__ __forceinline__ unsigned atomic_add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;\n"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}
// The thread-block cluster's barrier, every thread of every CTA: shared-memory writes before it
// are seen by the cluster's reads after it (sm_90; a decode launch in clusters only runs there).
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}
// The shared-memory address `addr` of this CTA as the cluster's CTA `rank` has it.
__device__ __forceinline__ unsigned cluster_address(unsigned addr, unsigned rank) {
  unsigned remote = addr;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
#endif
  return remote;
}
__device__ __forceinline__ float cluster_load(unsigned remote) {
  float x = 0.f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(x) : "r"(remote) : "memory");
#endif
  return x;
}
__device__ __forceinline__ float4 cluster_load4(unsigned remote) {
  float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
               : "r"(remote)
               : "memory");
#endif
  return x;
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
// d += a * b, a 16x16 (row), b 16x8 (col), bf16 in, fp32 accumulators.
__device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// 2^x by the hardware's approximation (flushing denormals), as FlashAttention's exp2f under
// --use_fast_math; 2^-inf is 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return reinterpret_cast<const unsigned&>(v);
}
__device__ __forceinline__ unsigned pack_half(float lo, float hi) {
  const __half2 v = __floats2half2_rn(lo, hi);
  return reinterpret_cast<const unsigned&>(v);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
// Byte offset of 16-byte chunk `chunk` of row `row` in a tile of rows of D bf16 values: the
// chunk index XOR the row's low three bits, so the eight rows an ldmatrix reads at one chunk
// column fall in different banks.
template <int D>
__device__ __forceinline__ unsigned tile_offset(int row, int chunk) {
  return static_cast<unsigned>(row * (D * 2) + ((chunk ^ (row & 7)) << 4));
}

template <int D_, int WM_, int WN_, int MT_, int BN_, int STAGES_, bool GROUP_ROWS_, bool SPLIT_,
          int CLUSTER_ = 1, bool COMPACT_ = false>
struct Config {
  static constexpr int D = D_, WM = WM_, WN = WN_, MT = MT_, BN = BN_, STAGES = STAGES_;
  static constexpr bool GROUP_ROWS = GROUP_ROWS_, SPLIT = SPLIT_;
  static constexpr int CLUSTER = CLUSTER_;  // decode: splits merged in clusters of this many CTAs
  // Decode: the copy and merge loops kept as loops, not unrolled (ATT_DEC_COMPACT).
  static constexpr bool COMPACT = COMPACT_;
  // Decode with one stage: its K and V copies are two groups waited for apart. Q K^T starts
  // when K is in, while V still arrives, the next tile's K is on its way during the softmax and
  // P V, its V during the next Q K^T, so the copies in flight never drain to none between
  // tiles (measured faster at every decode shape than waiting for both at once).
  static constexpr bool STAGGER = SPLIT_ && STAGES_ == 1;
  static constexpr int BM = 16 * MT * WM;  // query rows of a block
  static constexpr int KN = BN * WN;       // keys of a block's tile
  static constexpr int kThreads = 32 * WM * WN;
  static constexpr int kChunks = D / 8;  // 16-byte chunks of a row
  static constexpr int kQBytes = BM * D * 2;
  static constexpr int kTileBytes = KN * D * 2;  // K or V of one stage
  // The warps' merge rows D + 8 floats apart: the float2 stores of a warp's eight rows (four
  // lanes a row) then fall in distinct banks, four rows at a time.
  static constexpr int kMergeStride = D + 8;
  // Where a clustered split keeps its merged rows for the cluster (floats into shared memory,
  // past the warps' merge state): [BM][D], then the rows' log-sum-exps (log2).
  static constexpr int kClusterRows = WN * BM * (kMergeStride + 2) + BM;
  static_assert(CLUSTER == 1 || SPLIT, "clusters merge a decode launch's splits");
  static_assert(D == 64 || D == 128, "head_dim 64 or 128");
  static_assert(BN % 16 == 0 && BN >= 16, "ATT_BN: a multiple of 16");
  static_assert(STAGES >= 1, "at least one stage");
  static_assert(kThreads <= 1024, "at most 1024 threads");
};

// for (i = first; i < end; i += stride) body(i), unrolled as the compiler sees fit or, with
// `kRolled`, kept a loop. A decode split often runs each loop once, so every instruction it
// runs is fetched cold (after a flush, from DRAM): there, code size is time.
template <bool kRolled, class F>
__device__ __forceinline__ void strided_for(int first, int end, int stride, F&& body) {
  if constexpr (kRolled) {
#pragma unroll 1
    for (int i = first; i < end; i += stride) body(i);
  } else {
    for (int i = first; i < end; i += stride) body(i);
  }
}

// Where a block's row r (of its unit's rows) lives.
struct RowMap {
  int b, kvh, head0, group;
  bool group_rows;
  __device__ int pos(int r) const { return group_rows ? r / group : r; }
  __device__ int head(int r) const { return group_rows ? head0 + r % group : head0; }
};

// Chunk i of a K or V tile of C::KN keys from key n0: its element offset in k or v (key 0's
// for a key past the end, whose copy zero-fills), its byte offset in the tile, and whether
// its key exists.
struct TileChunk {
  long long src;
  unsigned dst;
  bool valid;
};
template <class C>
__device__ __forceinline__ TileChunk tile_chunk(int i, const Geometry& g, const RowMap& map,
                                                int n0) {
  const int r = i / C::kChunks;
  const int c = i % C::kChunks;
  const int key = n0 + r;
  const bool valid = key < g.seq_k;
  const long long src =
      (static_cast<long long>(map.b * g.seq_k + (valid ? key : 0)) * g.kv_heads + map.kvh) *
          C::D +
      c * 8;
  return {src, tile_offset<C::D>(r, c), valid};
}

template <class C>
__device__ __forceinline__ void load_kv_tile(unsigned k_dst, unsigned v_dst, const __nv_bfloat16* k,
                                             const __nv_bfloat16* v, const Geometry& g,
                                             const RowMap& map, int n0) {
  strided_for<C::COMPACT>(threadIdx.x, C::KN * C::kChunks, C::kThreads, [&](int i) {
    const TileChunk t = tile_chunk<C>(i, g, map, n0);
    cp_async_16(k_dst + t.dst, k + t.src, t.valid);
    cp_async_16(v_dst + t.dst, v + t.src, t.valid);
  });
}

// K or V alone (a decode stage's copies, one group each).
template <class C>
__device__ __forceinline__ void load_tile(unsigned dst, const __nv_bfloat16* src, const Geometry& g,
                                          const RowMap& map, int n0) {
  strided_for<C::COMPACT>(threadIdx.x, C::KN * C::kChunks, C::kThreads, [&](int i) {
    const TileChunk t = tile_chunk<C>(i, g, map, n0);
    cp_async_16(dst + t.dst, src + t.src, t.valid);
  });
}

// The block body: see the file's comment. o_part/lse_part/counter are used only with SPLIT.
template <class C>
__device__ void attention_block(const __nv_bfloat16* __restrict__ q,
                                const __nv_bfloat16* __restrict__ k,
                                const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                                float* __restrict__ lse, float* __restrict__ o_part,
                                float* __restrict__ lse_part, unsigned* __restrict__ counter,
                                const Geometry g) {
  constexpr int D = C::D, BM = C::BM, BN = C::BN, KN = C::KN, MT = C::MT, STAGES = C::STAGES;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int wm = warp % C::WM;
  const int wn = warp / C::WM;

  const int unit = blockIdx.y;
  RowMap map{};
  map.group = g.group;
  map.group_rows = C::GROUP_ROWS;
  int rows;
  if constexpr (C::GROUP_ROWS) {
    map.b = unit / g.kv_heads;
    map.kvh = unit % g.kv_heads;
    map.head0 = map.kvh * g.group;
    rows = g.seq_q * g.group;
  } else {
    map.b = unit / g.heads;
    map.head0 = unit % g.heads;
    map.kvh = map.head0 / g.group;
    rows = g.seq_q;
  }
  // A decode launch has its splits along x (a cluster's CTAs are consecutive along x) and its
  // query blocks along z; prefill its query blocks along x.
  const int m_index = C::SPLIT ? static_cast<int>(blockIdx.z) : static_cast<int>(blockIdx.x);
  const int m_count = C::SPLIT ? static_cast<int>(gridDim.z) : static_cast<int>(gridDim.x);
  const int split_index = C::SPLIT ? static_cast<int>(blockIdx.x) : 0;
  const int n_splits = C::SPLIT ? static_cast<int>(gridDim.x) : 1;
  const int m_block = g.causal ? m_count - 1 - m_index : m_index;
  const int row0 = m_block * BM;
  const int last_row = min(row0 + BM, rows) - 1;
  const int shift = g.seq_k - g.seq_q;  // key j is visible to position i when j <= i + shift
  int n_end = g.seq_k;
  if (g.causal) n_end = min(n_end, map.pos(last_row) + 1 + shift);
  const int n_tiles = n_end > 0 ? (n_end + KN - 1) / KN : 0;
  int t_begin = 0, t_end = n_tiles;
  if (n_splits > 1) {
    const int per = (n_tiles + n_splits - 1) / n_splits;
    t_begin = min(n_tiles, split_index * per);
    t_end = min(n_tiles, t_begin + per);
  }
  const int first_pos = map.pos(row0);

  const unsigned q_s = shared_address(attention_smem);
  const unsigned kv_s = q_s + C::kQBytes;
  auto k_stage = [&](int s) { return kv_s + static_cast<unsigned>(s * 2 * C::kTileBytes); };
  auto v_stage = [&](int s) { return k_stage(s) + static_cast<unsigned>(C::kTileBytes); };

  // Q tile (rows past the end zero-filled), joined to the first tile's copy group.
  strided_for<C::COMPACT>(threadIdx.x, BM * C::kChunks, C::kThreads, [&](int i) {
    const int r = i / C::kChunks;
    const int c = i % C::kChunks;
    const int row = row0 + r;
    const bool valid = row < rows;
    const int rr = valid ? row : 0;
    const long long off =
        (static_cast<long long>(map.b * g.seq_q + map.pos(rr)) * g.heads + map.head(rr)) * D +
        c * 8;
    cp_async_16(q_s + tile_offset<D>(r, c), q + off, valid);
  });

  float acc[MT][D / 8][4];
  float row_max[MT][2], row_sum[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int dn = 0; dn < D / 8; ++dn)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][dn][e] = 0.f;
    row_max[mt][0] = row_max[mt][1] = ATT_NEG_INF;
    row_sum[mt][0] = row_sum[mt][1] = 0.f;
  }
  const float scale_log2 = rsqrtf(static_cast<float>(D)) * kLog2e;

  if constexpr (C::STAGGER) {
    // Two groups a tile from here on: K (the first with Q's copies), then V.
    if (t_begin < t_end) load_tile<C>(k_stage(0), k, g, map, t_begin * KN);
    cp_async_commit();
    if (t_begin < t_end) load_tile<C>(v_stage(0), v, g, map, t_begin * KN);
    cp_async_commit();
  } else if constexpr (STAGES > 1) {
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
      if (t_begin + s < t_end)
        load_kv_tile<C>(k_stage(s), v_stage(s), k, v, g, map, (t_begin + s) * KN);
      cp_async_commit();
    }
  }

  for (int t = t_begin; t < t_end; ++t) {
    const int it = t - t_begin;
    int stage;
    if constexpr (C::STAGGER) {
      stage = 0;
      cp_async_wait<1>();  // this tile's K (V may still be on its way)
      __syncthreads();
    } else if constexpr (STAGES == 1) {
      stage = 0;
      __syncthreads();  // every warp is done with the previous tile
      load_kv_tile<C>(k_stage(0), v_stage(0), k, v, g, map, t * KN);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
    } else {
      stage = it % STAGES;
      cp_async_wait<STAGES - 2>();
      __syncthreads();  // tile t is in, and every warp is done with the stage refilled next
      const int tn = t + STAGES - 1;
      if (tn < t_end) {
        const int sn = (it + STAGES - 1) % STAGES;
        load_kv_tile<C>(k_stage(sn), v_stage(sn), k, v, g, map, tn * KN);
      }
      cp_async_commit();
    }
    const unsigned ks = k_stage(stage);
    const unsigned vs = v_stage(stage);
    const int n0 = t * KN + wn * BN;  // this warp's first key

    float s[MT][BN / 8][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][j][e] = 0.f;

#pragma unroll
    for (int kc = 0; kc < D / 16; ++kc) {
      unsigned a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        ldmatrix_x4(a[mt],
                    q_s + tile_offset<D>(wm * 16 * MT + mt * 16 + lane % 16, kc * 2 + lane / 16));
#pragma unroll
      for (int j = 0; j < BN / 8; j += 2) {
        unsigned b[4];
        ldmatrix_x4(b, ks + tile_offset<D>(wn * BN + j * 8 + (lane / 16) * 8 + lane % 8,
                                           kc * 2 + (lane / 8) % 2));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma_16816(s[mt][j], a[mt], b[0], b[1]);
          mma_16816(s[mt][j + 1], a[mt], b[2], b[3]);
        }
      }
    }
    if constexpr (C::STAGGER) {
      __syncthreads();  // every warp is done with this K: the next tile's comes in its place
      if (t + 1 < t_end) load_tile<C>(ks, k, g, map, (t + 1) * KN);
      cp_async_commit();
    }

    // Masks only where this warp's keys pass the end or the causal diagonal.
    const bool past_end = n0 + BN > g.seq_k;
    const bool diagonal = g.causal && n0 + BN - 1 > first_pos + shift;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + wm * 16 * MT + mt * 16 + lane / 4 + 8 * h;
        const int limit = g.causal ? min(g.seq_k, map.pos(row) + shift + 1) : g.seq_k;
        float mx = ATT_NEG_INF;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float x = s[mt][j][2 * h + e] * scale_log2;
            if (past_end || diagonal) {
              const int key = n0 + j * 8 + 2 * (lane % 4) + e;
              if (key >= limit) x = ATT_NEG_INF;
            }
            s[mt][j][2 * h + e] = x;
            mx = fmaxf(mx, x);
          }
        }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(row_max[mt][h], mx);
        const float m_use = m_new == ATT_NEG_INF ? 0.f : m_new;
        const float alpha = fast_exp2(row_max[mt][h] - m_use);
        row_max[mt][h] = m_new;
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float p = fast_exp2(s[mt][j][2 * h + e] - m_use);
            s[mt][j][2 * h + e] = p;
            sum += p;
          }
        }
        row_sum[mt][h] = row_sum[mt][h] * alpha + sum;
#pragma unroll
        for (int dn = 0; dn < D / 8; ++dn) {
          acc[mt][dn][2 * h] *= alpha;
          acc[mt][dn][2 * h + 1] *= alpha;
        }
      }
    }

    if constexpr (C::STAGGER) {
      cp_async_wait<1>();  // this tile's V (the next K may still be on its way)
      __syncthreads();
    }
    // O += P V: P's accumulators of two 8-key tiles are the A operand of one 16-key step.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      unsigned a[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        a[mt][0] = pack_bf16(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        a[mt][1] = pack_bf16(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        a[mt][2] = pack_bf16(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        a[mt][3] = pack_bf16(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int dn = 0; dn < D / 8; dn += 2) {
        unsigned b[4];
        ldmatrix_x4_trans(b,
                          vs + tile_offset<D>(wn * BN + kk * 16 + lane % 8 + ((lane / 8) % 2) * 8,
                                              dn + lane / 16));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          mma_16816(acc[mt][dn], a[mt], b[0], b[1]);
          mma_16816(acc[mt][dn + 1], a[mt], b[2], b[3]);
        }
      }
    }
    if constexpr (C::STAGGER) {
      __syncthreads();  // every warp is done with this V
      if (t + 1 < t_end) load_tile<C>(vs, v, g, map, (t + 1) * KN);
      cp_async_commit();
    }
  }
  // Every copy landed, the Q tile's too when a split has no keys (with one stage its copies
  // were never committed), before shared memory is reused below.
  cp_async_commit();
  cp_async_wait<0>();

#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      row_sum[mt][h] += __shfl_xor_sync(0xffffffffu, row_sum[mt][h], 1);
      row_sum[mt][h] += __shfl_xor_sync(0xffffffffu, row_sum[mt][h], 2);
    }

  auto o_offset = [&](int row) {
    return (static_cast<long long>(map.b * g.seq_q + map.pos(row)) * g.heads + map.head(row)) * D;
  };
  auto lse_offset = [&](int row) {
    return static_cast<long long>(map.b * g.heads + map.head(row)) * g.seq_q + map.pos(row);
  };

  // A decode launch of one split writes its rows directly, as prefill does.
  const bool split = n_splits > 1;
  if (C::WN == 1 && !split) {
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + wm * 16 * MT + mt * 16 + lane / 4 + 8 * h;
        if (row >= rows) continue;
        const float l = row_sum[mt][h];
        const float inv = l > 0.f ? 1.f / l : 0.f;
        __nv_bfloat16* out = o + o_offset(row) + 2 * (lane % 4);
#pragma unroll
        for (int dn = 0; dn < D / 8; ++dn)
          *reinterpret_cast<unsigned*>(out + dn * 8) =
              pack_bf16(acc[mt][dn][2 * h] * inv, acc[mt][dn][2 * h + 1] * inv);
        if (lane % 4 == 0)
          lse[lse_offset(row)] = l > 0.f ? (row_max[mt][h] + log2f(l)) * kLn2 : ATT_NEG_INF;
      }
    return;
  }
  if constexpr (C::WN > 1 || C::SPLIT) {
    // Each warp's unnormalised state to shared memory (the tiles are no longer needed), then
    // the block's rows merged over the warps along the keys: w_o[WN][BM][kMergeStride],
    // w_m, w_l [WN][BM], and a per-row factor and log-sum-exp (log2) of the merged row.
    constexpr int P = C::kMergeStride;
    __syncthreads();
    float* w_o = reinterpret_cast<float*>(attention_smem);
    float* w_m = w_o + C::WN * BM * P;
    float* w_l = w_m + C::WN * BM;
    float* row_lse2 = w_l + C::WN * BM;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wm * 16 * MT + mt * 16 + lane / 4 + 8 * h;
        float* dst = w_o + (wn * BM + r) * P + 2 * (lane % 4);
#pragma unroll
        for (int dn = 0; dn < D / 8; ++dn)
          *reinterpret_cast<float2*>(dst + dn * 8) =
              make_float2(acc[mt][dn][2 * h], acc[mt][dn][2 * h + 1]);
        if (lane % 4 == 0) {
          w_m[wn * BM + r] = row_max[mt][h];
          w_l[wn * BM + r] = row_sum[mt][h];
        }
      }
    __syncthreads();
    for (int r = threadIdx.x; r < BM; r += C::kThreads) {
      float m = ATT_NEG_INF;
      for (int w = 0; w < C::WN; ++w) m = fmaxf(m, w_m[w * BM + r]);
      const float m_use = m == ATT_NEG_INF ? 0.f : m;
      float l = 0.f;
      for (int w = 0; w < C::WN; ++w) {
        const float f = exp2f(w_m[w * BM + r] - m_use);
        w_m[w * BM + r] = f;  // now the warp's factor
        l += w_l[w * BM + r] * f;
      }
      const float inv = l > 0.f ? 1.f / l : 0.f;
      for (int w = 0; w < C::WN; ++w) w_m[w * BM + r] *= inv;
      row_lse2[r] = l > 0.f ? m_use + log2f(l) : ATT_NEG_INF;
    }
    __syncthreads();

    // Row r's four columns 4c..4c+3, merged over the warps.
    auto merged4 = [&](int r, int c) {
      float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll(C::COMPACT ? 1 : C::WN)
      for (int w = 0; w < C::WN; ++w) {
        const float4 p = *reinterpret_cast<const float4*>(w_o + (w * BM + r) * P + 4 * c);
        const float f = w_m[w * BM + r];
        x.x += p.x * f;
        x.y += p.y * f;
        x.z += p.z * f;
        x.w += p.w * f;
      }
      return x;
    };
    if (!split) {
      for (int i = threadIdx.x; i < BM * (D / 4); i += C::kThreads) {
        const int r = i / (D / 4), c = i % (D / 4);
        const int row = row0 + r;
        if (row >= rows) continue;
        const float4 x = merged4(r, c);
        *reinterpret_cast<uint2*>(o + o_offset(row) + 4 * c) =
            make_uint2(pack_bf16(x.x, x.y), pack_bf16(x.z, x.w));
        if (c == 0) lse[lse_offset(row)] = row_lse2[r] * kLn2;
      }
    } else {
      // This split's normalised rows to scratch: o_part[z][row][d], lse_part[z][row] over the
      // rows of every unit (batch * heads * seq_q in all), z the split's part. With clusters,
      // the cluster's splits are merged first, through distributed shared memory, into one
      // part a cluster (each CTA merging a share of the rows' columns); a launch of one cluster
      // a query block writes the output there, and needs no scratch and no ticket.
      const long long unit_rows = static_cast<long long>(unit) * rows;
      const long long total_rows = static_cast<long long>(g.batch) * g.heads * g.seq_q;
      const int n_rows = min(BM, rows - row0);
      const int splits = n_splits / C::CLUSTER;  // the parts the last block merges
      if constexpr (C::CLUSTER == 1) {
        strided_for<C::COMPACT>(threadIdx.x, n_rows * (D / 4), C::kThreads, [&](int i) {
          const int r = i / (D / 4), c = i % (D / 4);
          const long long pr = split_index * total_rows + unit_rows + row0 + r;
          *reinterpret_cast<float4*>(o_part + pr * D + 4 * c) = merged4(r, c);
          if (c == 0) lse_part[pr] = row_lse2[r];
        });
      } else {
        constexpr int CL = C::CLUSTER;
        float* c_o = reinterpret_cast<float*>(attention_smem) + C::kClusterRows;
        float* c_lse = c_o + BM * D;
        for (int i = threadIdx.x; i < n_rows * (D / 4); i += C::kThreads) {
          const int r = i / (D / 4), c = i % (D / 4);
          *reinterpret_cast<float4*>(c_o + r * D + 4 * c) = merged4(r, c);
          if (c == 0) c_lse[r] = row_lse2[r];
        }
        cluster_sync();
        // CTA `rank` merges items rank * threads + t, ... of the rows' float4 columns.
        constexpr int kItems = (BM * (D / 4) + CL * C::kThreads - 1) / (CL * C::kThreads);
        const int first = static_cast<int>(cluster_rank()) * C::kThreads + threadIdx.x;
        float4 x[kItems];
        float row_l2[kItems];
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
          const int i = first + it * CL * C::kThreads;
          if (i >= n_rows * (D / 4)) continue;
          const int r = i / (D / 4), c = i % (D / 4);
          const unsigned lse_at = shared_address(c_lse + r);
          const unsigned o_at = shared_address(c_o + r * D + 4 * c);
          float l2[CL];
          float4 p[CL];
#pragma unroll
          for (int j = 0; j < CL; ++j) {
            l2[j] = cluster_load(cluster_address(lse_at, j));
            p[j] = cluster_load4(cluster_address(o_at, j));
          }
          float m = l2[0];
#pragma unroll
          for (int j = 1; j < CL; ++j) m = fmaxf(m, l2[j]);
          const float m_use = m == ATT_NEG_INF ? 0.f : m;
          float l = 0.f;
          float4 acc4 = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
          for (int j = 0; j < CL; ++j) {
            const float w = exp2f(l2[j] - m_use);
            l += w;
            acc4.x += p[j].x * w;
            acc4.y += p[j].y * w;
            acc4.z += p[j].z * w;
            acc4.w += p[j].w * w;
          }
          const float inv = l > 0.f ? 1.f / l : 0.f;
          x[it] = make_float4(acc4.x * inv, acc4.y * inv, acc4.z * inv, acc4.w * inv);
          row_l2[it] = l > 0.f ? m_use + log2f(l) : ATT_NEG_INF;
        }
        cluster_sync();  // every CTA's rows read: a CTA may leave (and its shared memory go)
#pragma unroll
        for (int it = 0; it < kItems; ++it) {
          const int i = first + it * CL * C::kThreads;
          if (i >= n_rows * (D / 4)) continue;
          const int r = i / (D / 4), c = i % (D / 4);
          if (splits == 1) {
            *reinterpret_cast<uint2*>(o + o_offset(row0 + r) + 4 * c) =
                make_uint2(pack_bf16(x[it].x, x[it].y), pack_bf16(x[it].z, x[it].w));
            if (c == 0) lse[lse_offset(row0 + r)] = row_l2[it] * kLn2;
          } else {
            const long long pr = (split_index / CL) * total_rows + unit_rows + row0 + r;
            *reinterpret_cast<float4*>(o_part + pr * D + 4 * c) = x[it];
            if (c == 0) lse_part[pr] = row_l2[it];
          }
        }
        if (splits == 1) return;
      }
      // The ticket: one acquire-release atomic by thread 0 between two barriers orders every
      // thread's stores above before it, and the last block's loads below after it (the
      // barriers carry the order to and from thread 0, as CUTLASS's semaphores rely on), with
      // no fence of every thread on the way. Every CTA takes one (with clusters, each wrote a
      // share of its cluster's part).
      __syncthreads();
      __shared__ unsigned is_last;
      if (threadIdx.x == 0) {
        unsigned* ticket = counter + static_cast<long long>(unit) * m_count + m_block;
        is_last = atomic_add_acq_rel(ticket, 1u) == static_cast<unsigned>(n_splits - 1);
        if (is_last) *ticket = 0u;  // left zero for the next launch
      }
      __syncthreads();
      if (!is_last) return;
      // The last block merges every split's rows. It runs alone after all the others, so its
      // time is all latency: the factors f[z][r] of each row come from one warp (a lane a split,
      // the splits' log-sum-exps loaded at once, shuffles for the maximum and the sum), and the
      // rows are summed with sixteen splits' loads in flight a thread, in short loops (the
      // merge's code, first run here, may come from a cold L2).
      // (At most 64 splits, two a lane: the launcher's and the spec's cap.)
      float* f = w_o;  // [splits][BM]; the shared state above is no longer needed
#pragma unroll 1
      for (int r = warp; r < n_rows; r += C::kThreads / 32) {
        const int row = row0 + r;
        const float* lp = lse_part + unit_rows + row;
        const float a = lane < splits ? __ldcg(lp + lane * total_rows) : ATT_NEG_INF;
        const float b = lane + 32 < splits ? __ldcg(lp + (lane + 32) * total_rows) : ATT_NEG_INF;
        float m = fmaxf(a, b);
#pragma unroll
        for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        const float m_use = m == ATT_NEG_INF ? 0.f : m;
        const float ea = exp2f(a - m_use), eb = exp2f(b - m_use);
        float l = ea + eb;
#pragma unroll
        for (int o = 16; o > 0; o /= 2) l += __shfl_xor_sync(0xffffffffu, l, o);
        const float inv = l > 0.f ? 1.f / l : 0.f;
        if (lane < splits) f[lane * BM + r] = ea * inv;
        if (lane + 32 < splits) f[(lane + 32) * BM + r] = eb * inv;
        if (lane == 0) lse[lse_offset(row)] = l > 0.f ? (m_use + log2f(l)) * kLn2 : ATT_NEG_INF;
      }
      __syncthreads();
      constexpr int kInFlight = 16;
      const long long split_stride = total_rows * (D / 4);  // float4s from a split to the next
#pragma unroll 1
      for (int i = threadIdx.x; i < n_rows * (D / 4); i += C::kThreads) {
        const int r = i / (D / 4), c = i % (D / 4);
        const float4* p = reinterpret_cast<const float4*>(o_part + (unit_rows + row0 + r) * D) + c;
        float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 1
        for (int z0 = 0; z0 < splits; z0 += kInFlight) {
          // Past the last split a load repeats the last split's (weighted by zero below): no
          // predicate a load, less code to fetch cold.
          float4 part[kInFlight];
#pragma unroll
          for (int u = 0; u < kInFlight; ++u)
            part[u] = __ldcg(p + min(z0 + u, splits - 1) * split_stride);
          // Every load issued before the first use of any (the scheduler would interleave them
          // with the sums, and each use would stall the loads behind it).
          asm volatile("" ::: "memory");
#pragma unroll
          for (int u = 0; u < kInFlight; ++u) {
            const float w = z0 + u < splits ? f[(z0 + u) * BM + r] : 0.f;
            x.x += part[u].x * w;
            x.y += part[u].y * w;
            x.z += part[u].z * w;
            x.w += part[u].w * w;
          }
        }
        *reinterpret_cast<uint2*>(o + o_offset(row0 + r) + 4 * c) =
            make_uint2(pack_bf16(x.x, x.y), pack_bf16(x.z, x.w));
      }
    }
  }
}

// The reference: one warp per query row, in fp32, two passes over the keys (the maximum,
// then the exponentials and the weighted sum); lane l holds elements 2l, 2l + 1, 2l + 64, ...
// of the query row and of the output, so any head_dim up to 256 works. Keys go eight at a
// time: each lane's partial dot products of the eight are summed over the warp by halving
// exchanges (nine shuffles, not forty), after which lanes 4u .. 4u + 3 hold key u's score.
// It stays a plain loop over keys, independent of the kernels' tiling.
template <class T>
__device__ void attention_naive(const T* __restrict__ q, const T* __restrict__ k,
                                const T* __restrict__ v, T* __restrict__ o, float* __restrict__ lse,
                                int batch, int seq_q, int seq_k, int heads, int kv_heads,
                                int head_dim, int causal) {
  constexpr int kPairs = 256 / 64;  // element pairs a lane holds
  constexpr int kKeys = 8;          // keys scored together
  const int lane = threadIdx.x % 32;
  const long long warps =
      static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z * (blockDim.x / 32);
  const long long block =
      (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const long long total = static_cast<long long>(batch) * seq_q * heads;
  const int group = heads / kv_heads;
  const float scale = rsqrtf(static_cast<float>(head_dim));
  const int my_key = lane / 4;  // whose score this lane holds after the exchanges
  for (long long w = block * (blockDim.x / 32) + threadIdx.x / 32; w < total; w += warps) {
    const int h = static_cast<int>(w % heads);
    const int i = static_cast<int>((w / heads) % seq_q);
    const int b = static_cast<int>(w / (static_cast<long long>(heads) * seq_q));
    const int kvh = h / group;
    float qv[kPairs][2], ov[kPairs][2];
#pragma unroll
    for (int x = 0; x < kPairs; ++x)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int d = 2 * lane + 64 * x + e;
        qv[x][e] = d < head_dim ? to_float(q[w * head_dim + d]) : 0.f;
        ov[x][e] = 0.f;
      }
    const int limit = causal ? min(seq_k, i + seq_k - seq_q + 1) : seq_k;
    auto row = [&](const T* t, int j) {
      return t + (static_cast<long long>(b) * seq_k + j) * kv_heads * head_dim +
             static_cast<long long>(kvh) * head_dim;
    };
    // The scores of keys j0 .. j0 + 7 (those past `limit` are not read); returns the one of
    // key j0 + my_key, whole on every lane that holds it.
    auto scores = [&](int j0) {
      float s[kKeys];
#pragma unroll
      for (int u = 0; u < kKeys; ++u) {
        s[u] = 0.f;
        if (j0 + u >= limit) continue;
        const T* kr = row(k, j0 + u);
#pragma unroll
        for (int x = 0; x < kPairs; ++x)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int d = 2 * lane + 64 * x + e;
            if (d < head_dim) s[u] += qv[x][e] * to_float(kr[d]);
          }
      }
      // Halving exchanges: across lanes 16 apart keep keys 0-3 or 4-7, then 8 apart two of
      // those, then 4 apart one; the last two exchanges sum within groups of four lanes.
#pragma unroll
      for (int half = kKeys / 2, bit = 16; half >= 1; half /= 2, bit /= 2) {
        const bool upper = (lane & bit) != 0;
#pragma unroll
        for (int u = 0; u < half; ++u) {
          const float keep = upper ? s[u + half] : s[u];
          const float give = upper ? s[u] : s[u + half];
          s[u] = keep + __shfl_xor_sync(0xffffffffu, give, bit);
        }
      }
      float t = s[0];
      t += __shfl_xor_sync(0xffffffffu, t, 2);
      t += __shfl_xor_sync(0xffffffffu, t, 1);
      return t * scale;
    };
    float m = ATT_NEG_INF;
    for (int j0 = 0; j0 < limit; j0 += kKeys) {
      const float sc = scores(j0);
      if (j0 + my_key < limit) m = fmaxf(m, sc);
    }
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float l = 0.f;  // on lanes 0, 4, ..., 28: each key once
    for (int j0 = 0; j0 < limit; j0 += kKeys) {
      const float sc = scores(j0);
      const float p = j0 + my_key < limit ? expf(sc - m) : 0.f;
      if (lane % 4 == 0) l += p;
#pragma unroll
      for (int u = 0; u < kKeys; ++u) {
        const float pu = __shfl_sync(0xffffffffu, p, 4 * u);
        if (j0 + u >= limit) continue;
        const T* vr = row(v, j0 + u);
#pragma unroll
        for (int x = 0; x < kPairs; ++x)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int d = 2 * lane + 64 * x + e;
            if (d < head_dim) ov[x][e] += pu * to_float(vr[d]);
          }
      }
    }
    for (int off = 16; off > 0; off /= 2) l += __shfl_xor_sync(0xffffffffu, l, off);
#pragma unroll
    for (int x = 0; x < kPairs; ++x)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int d = 2 * lane + 64 * x + e;
        if (d < head_dim) o[w * head_dim + d] = from_float<T>(l > 0.f ? ov[x][e] / l : 0.f);
      }
    if (lane == 0)
      lse[(static_cast<long long>(b) * heads + h) * seq_q + i] =
          l > 0.f ? m + logf(l) : ATT_NEG_INF;
  }
}

template <class C128, class C64>
__device__ __forceinline__ void attention_dispatch(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                   const __nv_bfloat16* v, __nv_bfloat16* o,
                                                   float* lse, float* o_part, float* lse_part,
                                                   unsigned* counter, int batch, int seq_q,
                                                   int seq_k, int heads, int kv_heads, int head_dim,
                                                   int causal) {
  const Geometry g{batch, seq_q, seq_k, heads, kv_heads, heads / kv_heads, causal};
  if (head_dim == 128)
    attention_block<C128>(q, k, v, o, lse, o_part, lse_part, counter, g);
  else if (head_dim == 64)
    attention_block<C64>(q, k, v, o, lse, o_part, lse_part, counter, g);
}

}  // namespace attention_detail

template <int D>
using AttFwdConfig = attention_detail::Config<D, ATT_WARPS_M, ATT_WARPS_N, ATT_M_TILES, ATT_BN,
                                              ATT_STAGES, ATT_GROUP_ROWS != 0, false>;
template <int D>
using AttDecConfig = attention_detail::Config<D, 1, ATT_DEC_WARPS_N, 1, ATT_DEC_BN, ATT_DEC_STAGES,
                                              true, true, ATT_DEC_CLUSTER, ATT_DEC_COMPACT != 0>;

#if ATT_HAS(1)
// clang-format off
/* @kernelevo
id: attention_fwd_bf16
kernel: attention_fwd_bf16
params:
  ATT_WARPS_M: [1, 2, 4, 8]
  ATT_WARPS_N: [1, 2]
  ATT_M_TILES: [1, 2]
  ATT_BN: [32, 64, 128]
  ATT_STAGES: [1, 2, 3]
  ATT_GROUP_ROWS: [0, 1]
  ATT_MIN_BLOCKS: [1, 2]
let:
  GROUP: "heads / kv_heads"
  BM: "16 * ATT_WARPS_M * ATT_M_TILES"
  ROWS: "seq_q * (1 + ATT_GROUP_ROWS * (GROUP - 1))"
  UNITS: "batch * (kv_heads + (1 - ATT_GROUP_ROWS) * (heads - kv_heads))"
  TILE_BYTES: "(BM + ATT_STAGES * 2 * ATT_BN * ATT_WARPS_N) * head_dim * 2"
  MERGE_BYTES: "(ATT_WARPS_N > 1) * (ATT_WARPS_N * BM * (head_dim + 10) + BM) * 4"
constraints:
  - "ATT_M_TILES * (ATT_BN / 2 + 64) <= 192"
  - "32 * ATT_WARPS_M * ATT_WARPS_N <= 512"
  - "(BM + ATT_STAGES * 2 * ATT_BN * ATT_WARPS_N) * 256 <= 227 * 1024"
  - "(ATT_WARPS_N > 1) * ATT_WARPS_N * BM * 138 * 4 <= 227 * 1024"
problems:
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
validate:
  - {batch: 1, seq_q: 77, seq_k: 77, heads: 4, kv_heads: 1, head_dim: 64, causal: 1}
  - {batch: 2, seq_q: 33, seq_k: 150, heads: 6, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 1, seq_q: 130, seq_k: 61, heads: 2, kv_heads: 2, head_dim: 128, causal: 0}
  - {batch: 2, seq_q: 200, seq_k: 200, heads: 8, kv_heads: 8, head_dim: 64, causal: 0}
  - {batch: 3, seq_q: 1, seq_k: 1000, heads: 8, kv_heads: 1, head_dim: 128, causal: 0}
args:
  - {name: q, type: "const bfloat16*", count: "batch*seq_q*heads*head_dim", init: normal}
  - {name: k, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: v, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: o, type: "bfloat16*", count: "batch*seq_q*heads*head_dim", output: true}
  - {name: lse, type: "float*", count: "batch*heads*seq_q", output: true}
  - {name: batch, type: int, value: batch}
  - {name: seq_q, type: int, value: seq_q}
  - {name: seq_k, type: int, value: seq_k}
  - {name: heads, type: int, value: heads}
  - {name: kv_heads, type: int, value: kv_heads}
  - {name: head_dim, type: int, value: head_dim}
  - {name: causal, type: int, value: causal}
launch:
  grid: ["ceil_div(ROWS, BM)", "UNITS"]
  block: ["32 * ATT_WARPS_M * ATT_WARPS_N"]
  shared_bytes: "max(TILE_BYTES, MERGE_BYTES)"
reference: attention_fwd_bf16_naive
defines: ["ATT_ONLY=1"]
tolerance: {rtol: 2e-2, atol: 2e-2}
metrics: {flops: "4 * batch * heads * head_dim * (causal * (seq_q * seq_k - seq_q * (seq_q - 1) / 2) + (1 - causal) * seq_q * seq_k)", bytes: "(2 * batch * seq_q * heads + 2 * batch * seq_k * kv_heads) * head_dim * 2 + batch * heads * seq_q * 4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(AttFwdConfig<128>::kThreads, ATT_MIN_BLOCKS)
    attention_fwd_bf16(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                       const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                       float* __restrict__ lse, int batch, int seq_q, int seq_k, int heads,
                       int kv_heads, int head_dim, int causal) {
  attention_detail::attention_dispatch<AttFwdConfig<128>, AttFwdConfig<64>>(
      q, k, v, o, lse, nullptr, nullptr, nullptr, batch, seq_q, seq_k, heads, kv_heads, head_dim,
      causal);
}

// clang-format off
/* @kernelevo
id: attention_decode_bf16
kernel: attention_decode_bf16
params:
  ATT_DEC_WARPS_N: [1, 2, 4, 8]
  ATT_DEC_BN: [32, 64, 128]
  ATT_DEC_STAGES: [1, 2, 3, 4]
  ATT_DEC_BLOCKS: [132, 264, 396, 528, 1056, 2112]
  ATT_DEC_MIN_TILES: [1, 2, 4]
  ATT_DEC_CLUSTER: [1, 2, 4, 8]
  ATT_DEC_COMPACT: [0, 1]
let:
  GROUP: "heads / kv_heads"
  M_BLOCKS: "ceil_div(seq_q * GROUP, 16)"
  SPLITS_WANTED: "max(1, min(64, min(ATT_DEC_BLOCKS / (batch * kv_heads * M_BLOCKS), ceil_div(seq_k, ATT_DEC_MIN_TILES * ATT_DEC_BN * ATT_DEC_WARPS_N))))"
  # whole clusters: at least one
  SPLITS: "ATT_DEC_CLUSTER * max(1, SPLITS_WANTED / ATT_DEC_CLUSTER)"
  TILE_BYTES: "(16 + ATT_DEC_STAGES * 2 * ATT_DEC_BN * ATT_DEC_WARPS_N) * head_dim * 2"
  MERGE_BYTES: "(ATT_DEC_WARPS_N * 16 * (head_dim + 10) + 16 + 16 * 64 + (ATT_DEC_CLUSTER > 1) * (16 * head_dim + 16)) * 4"
constraints:
  - "(16 + ATT_DEC_STAGES * 2 * ATT_DEC_BN * ATT_DEC_WARPS_N) * 256 <= 227 * 1024"
  - "ATT_DEC_BN / 2 + 64 <= 192"
problems:
  - {batch: 32, seq_q: 1, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
  - {batch: 1, seq_q: 1, seq_k: 32768, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
  - {batch: 1, seq_q: 1, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
validate:
  - {batch: 3, seq_q: 1, seq_k: 1000, heads: 8, kv_heads: 1, head_dim: 128, causal: 0}
  - {batch: 2, seq_q: 2, seq_k: 777, heads: 8, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 1, seq_q: 1, seq_k: 45, heads: 4, kv_heads: 4, head_dim: 64, causal: 0}
  - {batch: 2, seq_q: 3, seq_k: 5000, heads: 16, kv_heads: 2, head_dim: 64, causal: 1}
args:
  - {name: q, type: "const bfloat16*", count: "batch*seq_q*heads*head_dim", init: normal}
  - {name: k, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: v, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: o, type: "bfloat16*", count: "batch*seq_q*heads*head_dim", output: true}
  - {name: lse, type: "float*", count: "batch*heads*seq_q", output: true}
  - {name: o_part, type: "float*", count: "64*batch*seq_q*heads*head_dim", scratch: true}
  - {name: lse_part, type: "float*", count: "64*batch*seq_q*heads", scratch: true}
  - {name: counter, type: "unsigned*", count: "batch*seq_q*heads", scratch: true}
  - {name: batch, type: int, value: batch}
  - {name: seq_q, type: int, value: seq_q}
  - {name: seq_k, type: int, value: seq_k}
  - {name: heads, type: int, value: heads}
  - {name: kv_heads, type: int, value: kv_heads}
  - {name: head_dim, type: int, value: head_dim}
  - {name: causal, type: int, value: causal}
launch:
  grid: ["SPLITS", "batch * kv_heads", "M_BLOCKS"]
  block: ["32 * ATT_DEC_WARPS_N"]
  shared_bytes: "max(TILE_BYTES, MERGE_BYTES)"
  cluster: "ATT_DEC_CLUSTER"
reference: attention_decode_bf16_naive
defines: ["ATT_ONLY=1"]
timing: alone
tolerance: {rtol: 2e-2, atol: 2e-2}
metrics: {flops: "4 * batch * heads * head_dim * seq_q * seq_k", bytes: "(2 * batch * seq_q * heads + 2 * batch * seq_k * kv_heads) * head_dim * 2 + batch * heads * seq_q * 4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(AttDecConfig<128>::kThreads)
    attention_decode_bf16(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                          const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                          float* __restrict__ lse, float* __restrict__ o_part,
                          float* __restrict__ lse_part, unsigned* __restrict__ counter, int batch,
                          int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal) {
  attention_detail::attention_dispatch<AttDecConfig<128>, AttDecConfig<64>>(
      q, k, v, o, lse, o_part, lse_part, counter, batch, seq_q, seq_k, heads, kv_heads, head_dim,
      causal);
}

extern "C" __global__ void attention_fwd_bf16_naive(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
    const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
    int batch, int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal) {
  attention_detail::attention_naive(q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, head_dim,
                                    causal);
}

extern "C" __global__ void attention_decode_bf16_naive(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
    const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
    float* __restrict__ o_part, float* __restrict__ lse_part, unsigned* __restrict__ counter,
    int batch, int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal) {
  (void)o_part;
  (void)lse_part;
  (void)counter;
  attention_detail::attention_naive(q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, head_dim,
                                    causal);
}
#endif  // ATT_HAS(1)

// ---------------------------------------------------------------------------------------------
// attention_fwd_sm90 (sm_90a, ATT90_*): the prefill kernel on Hopper's structure, as
// FlashAttention 3 builds it. A block takes BM = 64 * ATT90_CONSUMERS query rows of one head
// (blockIdx.y) of one batch (blockIdx.z). A producer warpgroup (one thread) loads the Q tile
// once and then K and V tiles of ATT90_BN keys with TMA (4-D tensor maps over
// [batch, seq, heads, head_dim], 128-byte swizzle, out-of-range rows read as zeros) into an
// ATT90_STAGES-deep ring, each tile on its own "full" mbarrier and released on its "empty" one.
// Each consumer warpgroup owns 64 rows: S = Q K^T with wgmma from shared memory (both operands
// K-major), the online softmax on S's accumulators in registers, then O += P V with P as the
// register operand of wgmma (S's accumulator layout is the A fragment's) and V from shared
// memory (MN-major). setmaxnreg moves the producer's registers to the consumers. With
// ATT90_OVERLAP = 1 a consumer issues the next tile's Q K^T before this tile's P V and runs the
// softmax while that P V is in the tensor cores (FlashAttention 3's intra-warpgroup overlap);
// with ATT90_PINGPONG = 1 as well, two consumers take turns issuing their wgmma, so one's
// softmax runs while the other's products do (FlashAttention 3's ping-pong schedule).
// The epilogue writes O through the consumer's own Q rows of shared memory and a TMA store
// (rows past seq_q are clipped), the log-sum-exp from registers. Causal blocks run in reverse
// order so the longest start first. With ATT90_CTAS = N > 0 the grid is at most N persistent
// blocks (and no more than the SMs), each taking every grid-th tile (tile_at says in which order)
// with one K/V ring and two Q buffers across its tiles, so a tile's loads overlap the last one's
// epilogue (FlashAttention 3's persistent schedule; it pays where tiles are short). Compiled for
// any other target than sm_90a it traps.
#ifndef ATT90_BN
#define ATT90_BN 128
#endif
#ifndef ATT90_CONSUMERS
#define ATT90_CONSUMERS 2
#endif
#ifndef ATT90_STAGES
#define ATT90_STAGES 2
#endif
#ifndef ATT90_OVERLAP
#define ATT90_OVERLAP 1
#endif
#ifndef ATT90_PINGPONG
#define ATT90_PINGPONG 1
#endif
// 1: a row's maximum is kept until a tile's exceeds it by 2^8 (lazy rescaling of O).
#ifndef ATT90_LAZY
#define ATT90_LAZY 1
#endif
// 0: a block per query tile; N: at most N persistent blocks, and no more than the GPU's SMs
// (132 on an H100 or H200), walking all tiles, each loading its next tile's keys while it
// stores the last output. The defaults (persistent, ping-pong) are the one winner of every
// problem tuned on an H100, bench/results/2026-12-06-attention-persistent-h100.
#ifndef ATT90_CTAS
#define ATT90_CTAS 132
#endif
// 1 (with CTAS): Stream-K over the last round. The persistent blocks take whole tiles for every
// full round, then share the key tiles of the tiles left evenly, so no block waits on a last
// round of whole tiles (4096 tiles on 132 blocks take 32 rounds where 31.03 would do). A query
// tile whose keys two or more blocks share is finished by the last of them to arrive (an
// atomic ticket), which merges the others' unnormalised partial outputs from scratch (o_part,
// counter); without scratch (null pointers) the blocks take whole tiles only.
#ifndef ATT90_STREAM
#define ATT90_STREAM 0
#endif
// 1 (with PINGPONG): consumer 1's last turn of a tile hands consumer 0 the next tile's first,
// so consumer 0 starts that tile's Q K^T and softmax while consumer 1 finishes its P V and
// stores its output.
#ifndef ATT90_HANDOFF
#define ATT90_HANDOFF 0
#endif
// The fp16 kernel's own parameters (attention_fwd_sm90_f16), the same meanings.
#ifndef ATT90H_BN
#define ATT90H_BN 128
#endif
#ifndef ATT90H_CONSUMERS
#define ATT90H_CONSUMERS 2
#endif
#ifndef ATT90H_STAGES
#define ATT90H_STAGES 2
#endif
#ifndef ATT90H_OVERLAP
#define ATT90H_OVERLAP 1
#endif
#ifndef ATT90H_PINGPONG
#define ATT90H_PINGPONG 1
#endif
#ifndef ATT90H_LAZY
#define ATT90H_LAZY 1
#endif
#ifndef ATT90H_CTAS
#define ATT90H_CTAS 132
#endif
#ifndef ATT90H_STREAM
#define ATT90H_STREAM 0
#endif
#ifndef ATT90H_HANDOFF
#define ATT90H_HANDOFF 0
#endif

// A TMA tensor map (CUtensorMap: 128 opaque bytes), encoded by the host for the kernel's
// buffer and passed by value as a __grid_constant__ parameter.
struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// clang-format off
// S[64 x 64] (+)= A[64 x 16] * B[16 x 64], A and B K-major in shared memory, of TYPES
// ("bf16.bf16" or "f16.f16"); scale_d 0 overwrites S.
#define ATT90_SS64(TYPES, d, desc_a, desc_b, scale_d)                                       \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "  \
      "%32, %33, p, 1, 1, 0, 0;\n}\n"                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])  \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// S[64 x 128] (+)= A[64 x 16] * B[16 x 128], A and B K-major in shared memory, of TYPES
// ("bf16.bf16" or "f16.f16"); scale_d 0 overwrites S.
#define ATT90_SS128(TYPES, d, desc_a, desc_b, scale_d)                                       \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "  \
      "%64, %65, p, 1, 1, 0, 0;\n}\n"                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),  \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),  \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),  \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),  \
        "+f"(d[63])  \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// S[64 x 176] (+)= A[64 x 16] * B[16 x 176], A and B K-major in shared memory, of TYPES
// ("bf16.bf16" or "f16.f16"); scale_d 0 overwrites S.
#define ATT90_SS176(TYPES, d, desc_a, desc_b, scale_d)                                       \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n176k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87}, "  \
      "%88, %89, p, 1, 1, 0, 0;\n}\n"                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),  \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),  \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),  \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),  \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),  \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),  \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),  \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])  \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// S[64 x 192] (+)= A[64 x 16] * B[16 x 192], A and B K-major in shared memory, of TYPES
// ("bf16.bf16" or "f16.f16"); scale_d 0 overwrites S.
#define ATT90_SS192(TYPES, d, desc_a, desc_b, scale_d)                                       \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n192k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, "  \
      "%96, %97, p, 1, 1, 0, 0;\n}\n"                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),  \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),  \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),  \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),  \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),  \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),  \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),  \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),  \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])  \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// O[64 x 64] += P[64 x 16] * B[16 x 64], P in registers (pairs of TYPES), B MN-major in shared
// memory.
#define ATT90_RS64(TYPES, d, a, desc_b)                                                     \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "  \
      "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])  \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(1))

// O[64 x 128] += P[64 x 16] * B[16 x 128], P in registers (pairs of TYPES), B MN-major in shared
// memory.
#define ATT90_RS128(TYPES, d, a, desc_b)                                                     \
  asm volatile(                                                                      \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                   \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPES " "                         \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "  \
      "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"                   \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),  \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),  \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),  \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),  \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),  \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),  \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),  \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),  \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),  \
        "+f"(d[63])  \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(1))

// clang-format on

namespace attention_sm90_detail {

using attention_detail::fast_exp2;
using attention_detail::kLn2;
using attention_detail::kLog2e;
using attention_detail::pack_bf16;
using attention_detail::shared_address;

template <int D_, int BN_, int CONSUMERS_, int STAGES_, bool OVERLAP_, bool PINGPONG_, bool LAZY_,
          int CTAS_, bool STREAM_, bool HANDOFF_>
struct Config {
  static constexpr int D = D_, BN = BN_, CONSUMERS = CONSUMERS_, STAGES = STAGES_;
  static constexpr bool OVERLAP = OVERLAP_, PINGPONG = PINGPONG_, LAZY = LAZY_;
  static constexpr int CTAS = CTAS_;  // 0: a block per tile; else persistent blocks
  // Persistent blocks split the last round's tiles along their keys (Stream-K), given scratch.
  static constexpr bool STREAM = STREAM_ && CTAS_ > 0;
  static constexpr bool HANDOFF = HANDOFF_ && PINGPONG_;
  // Persistent blocks load the next tile's Q into a second buffer during this tile.
  static constexpr int kQSlots = CTAS > 0 ? 2 : 1;
  static constexpr int BM = 64 * CONSUMERS;
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  // A tile is D / 64 column blocks ("halves" for D = 128) of rows of 64 values (128 bytes,
  // one swizzle span), each block a whole TMA box.
  static constexpr int kBlocks = D / 64;
  static constexpr int kQBlockBytes = BM * 128;
  static constexpr int kKvBlockBytes = BN * 128;
  static constexpr int kQBytes = kQBlockBytes * kBlocks;
  static constexpr int kTileBytes = kKvBlockBytes * kBlocks;  // K or V of one stage
  // A consumer's registers after setmaxnreg: what the producer's 24 leave of the SM's 64K, a
  // multiple of 8, at most 256 (more than the file holds would block setmaxnreg forever).
  static constexpr int kConsumerRegs = (65536 - 24 * 128) / (128 * CONSUMERS) / 8 * 8 > 256
                                           ? 256
                                           : (65536 - 24 * 128) / (128 * CONSUMERS) / 8 * 8;
  static_assert(D == 64 || D == 128, "head_dim 64 or 128");
  static_assert(BN == 64 || BN == 128 || BN == 176 || BN == 192, "ATT90_BN: 64, 128, 176 or 192 keys");
  static_assert(CONSUMERS >= 1 && CONSUMERS <= 3, "one to three consumer warpgroups");
  static_assert(STAGES >= 1, "at least one stage");
  static_assert(!PINGPONG || (CONSUMERS == 2 && OVERLAP), "ping-pong: two overlapping consumers");
  static_assert(CTAS >= 0, "ATT90_CTAS: 0 or a block count");
};

// Four-dimensional TMA copy of the box at (x innermost, y, z, w) of `map` into shared memory
// at `dst`, its bytes counted on the mbarrier `bar` as they land.
__device__ __forceinline__ void tma_load_4d(unsigned dst, const TensorMap& map, int x, int y, int z,
                                            int w, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(y), "r"(z), "r"(w), "r"(bar)
      : "memory");
}
// Four-dimensional TMA store of the box at (x, y, z, w) of `map` from shared memory at `src`.
__device__ __forceinline__ void tma_store_4d(const TensorMap& map, unsigned src, int x, int y,
                                             int z, int w) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(
          reinterpret_cast<unsigned long long>(&map)),
      "r"(x), "r"(y), "r"(z), "r"(w), "r"(src)
      : "memory");
}
__device__ __forceinline__ void prefetch_tensor_map(const TensorMap& map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(&map))
               : "memory");
}
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
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// Shared-memory matrix descriptor in the 128-byte swizzle: start address, leading byte offset
// (MN-major: between 64-element blocks of N; unused K-major), 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long descriptor(unsigned addr, unsigned lead) {
  return static_cast<unsigned long long>((addr & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(lead >> 4) << 16) |
         (static_cast<unsigned long long>(1024 >> 4) << 32) | (1ull << 62);
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
// Ties registers that an asynchronous wgmma reads or writes to this point of the program, so
// the compiler neither reads them earlier nor reuses them sooner.
template <int N>
__device__ __forceinline__ void fence_registers(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void fence_registers(unsigned (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// kHalf: fp16 operands, else bf16.
#define ATT90_TYPED(kHalf, MACRO, ...) \
  if constexpr (kHalf) {               \
    MACRO("f16.f16", __VA_ARGS__);     \
  } else {                             \
    MACRO("bf16.bf16", __VA_ARGS__);   \
  }

template <int N, bool kHalf>
__device__ __forceinline__ void wgmma_qk(float (&s)[N / 2], unsigned long long desc_a,
                                         unsigned long long desc_b, int scale_d) {
  if constexpr (N == 64) {
    ATT90_TYPED(kHalf, ATT90_SS64, s, desc_a, desc_b, scale_d)
  } else if constexpr (N == 128) {
    ATT90_TYPED(kHalf, ATT90_SS128, s, desc_a, desc_b, scale_d)
  } else if constexpr (N == 176) {
    ATT90_TYPED(kHalf, ATT90_SS176, s, desc_a, desc_b, scale_d)
  } else {
    ATT90_TYPED(kHalf, ATT90_SS192, s, desc_a, desc_b, scale_d)
  }
}
template <int N, bool kHalf>
__device__ __forceinline__ void wgmma_pv(float (&o)[N / 2], const unsigned* a,
                                         unsigned long long desc_b) {
  if constexpr (N == 64) {
    ATT90_TYPED(kHalf, ATT90_RS64, o, a, desc_b)
  } else {
    ATT90_TYPED(kHalf, ATT90_RS128, o, a, desc_b)
  }
}
template <bool kHalf>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  if constexpr (kHalf) {
    return attention_detail::pack_half(lo, hi);
  } else {
    return pack_bf16(lo, hi);
  }
}

// A consumer warpgroup's running softmax state for its thread's two rows (r0 and r0 + 8).
struct RowState {
  float max[2];  // in log2 units of the scaled scores
  float sum[2];  // this thread's columns only; the quad's are added at the end
};

// Lazy rescaling keeps a row's maximum until a tile's exceeds it by more than this (log2
// units): P then stays at most 2^8, and O and the sums are rescaled only when a row's
// maximum moves further (the log-sum-exp uses the kept maximum, so it stays exact).
constexpr float kLazyRescaleLog2 = 8.f;

// The scores of key tile `n0` in place to exp2(s * scale_log2 - max) (an FFMA and the
// hardware's exp2 each), with kMask keys at or past each row's `limit` masked out (a tile
// that passes neither the end nor the diagonal is softmaxed without the compares); returns
// each row's factor for the earlier sums and O (exactly 1 where kLazy kept the maximum).
template <int BN, bool kMask, bool kLazy>
__device__ __forceinline__ void online_softmax(float (&s)[BN / 2], RowState& st, float (&alpha)[2],
                                               int n0, const int (&limit)[2], int lane,
                                               float scale_log2) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float mx = ATT_NEG_INF;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if constexpr (kMask)
          if (n0 + j * 8 + 2 * (lane % 4) + e >= limit[h]) s[4 * j + 2 * h + e] = ATT_NEG_INF;
        mx = fmaxf(mx, s[4 * j + 2 * h + e]);
      }
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // The maximum in log2 units of the scaled scores (a positive scale keeps the order). The
    // quad agrees on it, so a kept maximum is kept by the row's four threads alike; from
    // -inf any finite maximum moves (and -inf - -inf is NaN, not kept).
    float m_new = fmaxf(st.max[h], mx * scale_log2);
    bool keep = false;
    if constexpr (kLazy) keep = m_new - st.max[h] <= kLazyRescaleLog2;
    if (keep) m_new = st.max[h];
    const float m_use = m_new == ATT_NEG_INF ? 0.f : m_new;
    alpha[h] = keep ? 1.f : fast_exp2(st.max[h] - m_use);
    st.max[h] = m_new;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float p = fast_exp2(fmaf(s[4 * j + 2 * h + e], scale_log2, -m_use));
        s[4 * j + 2 * h + e] = p;
        sum += p;
      }
    }
    st.sum[h] = st.sum[h] * alpha[h] + sum;
  }
}

// P in the operands' type as wgmma's A fragments: the accumulators of two 8-key column blocks
// of S are one 16-key k-step's four registers.
template <int BN, bool kHalf>
__device__ __forceinline__ void pack_p(unsigned (&p)[BN / 4], const float (&s)[BN / 2]) {
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    p[4 * kk + 0] = pack2<kHalf>(s[8 * kk + 0], s[8 * kk + 1]);
    p[4 * kk + 1] = pack2<kHalf>(s[8 * kk + 2], s[8 * kk + 3]);
    p[4 * kk + 2] = pack2<kHalf>(s[8 * kk + 4], s[8 * kk + 5]);
    p[4 * kk + 3] = pack2<kHalf>(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

// O's rows times their factors; with kLazy only when a row of the warp's moved (the branch
// is the warp's, so it does not diverge).
template <int D, bool kLazy>
__device__ __forceinline__ void rescale(float (&o)[D / 2], const float (&alpha)[2]) {
  if constexpr (kLazy)
    if (!__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) return;
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    o[4 * j + 0] *= alpha[0];
    o[4 * j + 1] *= alpha[0];
    o[4 * j + 2] *= alpha[1];
    o[4 * j + 3] *= alpha[1];
  }
}

// The tile (query block `m_block` of head `head` of batch `b`) a block takes at its turn `turn`:
// its own (one turn) without CTAS, else every CTAS-th of all tiles, ordered as the blocks of
// the grid without CTAS are: the query blocks of one head together (they read the same keys
// and values while those are in the L2; heads across the same query block would not fit it
// with many heads). Causal query blocks differ in length, so there a block takes them in
// pairs of equal total length, every CTAS-th pair: the longest and the shortest of a head,
// the second longest and the second shortest, and so on (without CTAS the hardware hands
// the blocks out as SMs free up, longest first).
struct Tile {
  int b, head, m_block;
};
// tile_at's persistent order as host code too (StreamRun's whole tiles; tile_at keeps its own
// copy, whose code this would change): the tile of index i, and the index block `block` of
// `grid` takes at its turn `turn`.
__host__ __device__ __forceinline__ Tile tile_of(unsigned i, const attention_detail::Geometry& g,
                                                 int m_blocks) {
  const int bh = static_cast<int>(i / m_blocks);
  const int j = static_cast<int>(i % m_blocks);
  // causal: j = 0, 1, 2, 3, ... are the query blocks m_blocks - 1, 0, m_blocks - 2, 1, ...
  return {bh / g.heads, bh % g.heads, g.causal ? (j % 2 == 0 ? m_blocks - 1 - j / 2 : j / 2) : j};
}
__host__ __device__ __forceinline__ unsigned tile_index(int turn, unsigned block, unsigned grid,
                                                        int causal) {
  return causal ? 2 * (block + (turn / 2) * grid) + turn % 2 : block + turn * grid;
}
template <class C>
__device__ __forceinline__ bool tile_at(int turn, const attention_detail::Geometry& g, Tile& t) {
  const int m_blocks = (g.seq_q + C::BM - 1) / C::BM;
  if constexpr (C::CTAS == 0) {
    if (turn > 0) return false;
    const int m = static_cast<int>(blockIdx.x);
    t = {static_cast<int>(blockIdx.z), static_cast<int>(blockIdx.y),
         g.causal ? m_blocks - 1 - m : m};
  } else {
    // (The launch keeps the tile count below 2^31.)
    const unsigned i = g.causal ? 2 * (blockIdx.x + (turn / 2) * gridDim.x) + turn % 2
                                : blockIdx.x + turn * gridDim.x;
    if (i >= static_cast<unsigned>(g.heads * g.batch * m_blocks)) return false;
    const int bh = static_cast<int>(i / m_blocks);
    const int j = static_cast<int>(i % m_blocks);
    // causal: j = 0, 1, 2, 3, ... are the query blocks m_blocks - 1, 0, m_blocks - 2, 1, ...
    t = {bh / g.heads, bh % g.heads, g.causal ? (j % 2 == 0 ? m_blocks - 1 - j / 2 : j / 2) : j};
  }
  return true;
}
// The key tiles a query block at m0 reads: all of them, or causal, those up to its last row's
// diagonal.
template <class C>
__host__ __device__ __forceinline__ int key_tiles(int m0, const attention_detail::Geometry& g) {
  int n_end = g.seq_k;
  if (g.causal) n_end = min(n_end, min(m0 + C::BM, g.seq_q) + g.seq_k - g.seq_q);
  return n_end > 0 ? (n_end + C::BN - 1) / C::BN : 0;
}

// A block's piece of work: key tiles [tb, te) of the query tile `tile`, which has `len` key
// tiles in all; where other blocks share its keys (parts > 1: blocks among first..last,
// StreamRun::part_block), `slot` is this block's scratch slot for its partial output and `pos`
// the position of the tile's first key tile in the stream of all of them.
struct Work {
  Tile tile;
  int tb, te, len, parts, first, last, slot;
  long long pos;
  // The whole of tile t, of len key tiles.
  __host__ __device__ void whole(const Tile& t, int key_tile_count) {
    tile = t;
    len = te = key_tile_count;
    tb = 0;
    parts = 1;
  }
};

__host__ __device__ constexpr int gcd_of(int a, int b) { return b == 0 ? a : gcd_of(b, a % b); }
// The sum of floor((A i + b) / B) over i in [0, n), for b >= 0: the terms grow by A / G every
// B / G of them (G = gcd(A, B)), so one period's sum gives the rest. (The loops stay rolled:
// unrolled over BN 176's 11-term period, the search asking twice a step at four inlined places,
// they tripled the kernel's code.)
template <int A, int B>
__host__ __device__ long long sum_of_floors(int n, int b) {
  constexpr int kPeriod = B / gcd_of(A, B), kStep = A / gcd_of(A, B);
  int period = 0;
#pragma unroll 1
  for (int i = 0; i < kPeriod; ++i) period += (A * i + b) / B;
  const int q = n / kPeriod, r = n % kPeriod;
  long long sum =
      static_cast<long long>(q) * period +
      static_cast<long long>(kStep) * kPeriod * (static_cast<long long>(q) * (q - 1) / 2);
#pragma unroll 1
  for (int i = 0; i < r; ++i) sum += (A * i + b) / B + static_cast<long long>(q) * kStep;
  return sum;
}

// Stream-K's pieces of block `block` of `grid`. First whole tiles in tile_at's order, one a
// turn, for as many turns as every block has one (causal: whole pairs); then the key tiles of
// the tiles left (fewer than the blocks, or than twice as many causal), in the same order, the
// block taking positions [block W / grid, (block + 1) W / grid) of the W in all, cut at tile
// boundaries. So the blocks split only the last round's tiles, neighbours whose keys and values
// the L2 shares, as whole tiles in order do. A tile left with no key tiles (nothing visible)
// belongs to the block whose run holds its position, the last block's where that is W. W and
// the tile holding a block's first position come in closed form (keys_from), not by walking
// the tiles: the consumers place themselves before their first tile, the producer at its first
// piece after the whole tiles. Host code too, for tests/templates/attention_stream_run.cu.
template <class C>
struct StreamRun {
  int block, grid, m_blocks;
  int turn = 0, whole_turns = 0;
  bool placed = false;  // tile and pos set (place)
  // Stream-K: the index of the tile at `pos`, and the block's run [start, end) of `total`
  long long tile = 0, tiles = 0, total = 0, start = 0, end = 0, pos = 0;
  long long per_head = 0;  // the key tiles of one head's tiles

  // With `place_now` false, the search for the block's first tile waits for its first piece
  // after the whole tiles (the producer's choice: it runs ahead of the consumers there, not
  // before its first load).
  __host__ __device__ StreamRun(const attention_detail::Geometry& g, int block_index,
                                int block_count, bool place_now = true)
      : block(block_index), grid(block_count), m_blocks((g.seq_q + C::BM - 1) / C::BM) {
    tiles = static_cast<long long>(m_blocks) * g.batch * g.heads;
    whole_turns = static_cast<int>(g.causal ? 2 * (tiles / (2LL * grid)) : tiles / grid);
    per_head = keys_below(g, m_blocks);
    total = keys_from(g, static_cast<long long>(whole_turns) * grid);
    start = static_cast<long long>(block) * total / grid;
    end = static_cast<long long>(block + 1) * total / grid;
    if (place_now) place(g);
  }
  __host__ __device__ void place(const attention_detail::Geometry& g) {
    placed = true;
    const long long first = static_cast<long long>(whole_turns) * grid;
    tile = first;
    if (total == 0) {  // nothing left to read: the last block writes every tile left
      if (block + 1 != grid) tile = tiles;
      return;
    }
    if (start == end) {  // fewer key tiles left than blocks: this one has none (never the last)
      tile = tiles;
      return;
    }
    // The first tile that begins at `start` or holds it: the first tile t that begins at or
    // after it (positions rise with t; the end, tiles, begins at total > start), or where t
    // begins after it, the tile before t.
    long long lo = first, hi = tiles;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (total - keys_from(g, mid) >= start)
        hi = mid;
      else
        lo = mid + 1;
    }
    pos = total - keys_from(g, lo);
    if (pos > start) pos = total - keys_from(g, --lo);
    tile = lo;
  }
  // The key tiles of query blocks [0, m) of one head, in the blocks' own order (key_tiles's
  // count for each: all of them, or causal, those up to the diagonal).
  __host__ __device__ long long keys_below(const attention_detail::Geometry& g, int m) const {
    const long long all = g.seq_k > 0 ? (g.seq_k + C::BN - 1) / C::BN : 0;
    if (!g.causal) return m * all;
    // Causal: a whole block m (of seq_q / BM) reads up to (m + 1) BM + shift keys (shift =
    // seq_k - seq_q), none before the first block for which that is positive; a last, partial
    // block reads them all.
    const int whole = min(m, g.seq_q / C::BM);
    const int shift = g.seq_k - g.seq_q;
    const int lo = shift >= 0 ? 0 : min(whole, -shift / C::BM);
    long long sum = (m - whole) * all;
    if (whole > lo)
      sum += sum_of_floors<C::BM, C::BN>(whole - lo, (lo + 1) * C::BM + shift + C::BN - 1);
    return sum;
  }
  // The key tiles of the tiles at places [j, m_blocks) of one head's order (tile_of's: causal,
  // the query blocks m_blocks - 1, 0, m_blocks - 2, 1, ..., so those from place j on are the
  // blocks [j / 2, m_blocks - (j + 1) / 2)).
  __host__ __device__ long long head_keys_from(const attention_detail::Geometry& g, int j) const {
    if (!g.causal) return per_head - keys_below(g, j);
    return keys_below(g, m_blocks - (j + 1) / 2) - keys_below(g, j / 2);
  }
  // The key tiles of the tiles [i, tiles), in tile_of's order.
  __host__ __device__ long long keys_from(const attention_detail::Geometry& g, long long i) const {
    if (i >= tiles) return 0;
    // (The launch keeps the tile count below 2^31.)
    const unsigned bh = static_cast<unsigned>(i) / static_cast<unsigned>(m_blocks);
    const int j = static_cast<int>(static_cast<unsigned>(i) - bh * m_blocks);
    return head_keys_from(g, j) + (static_cast<long long>(g.batch) * g.heads - bh - 1) * per_head;
  }
  // The block whose run holds position w (of total > 0).
  __host__ __device__ int block_of(long long w) const {
    const long long c = ((w + 1) * grid + total - 1) / total - 1;
    return static_cast<int>(c < 0 ? 0 : (c >= grid ? grid - 1 : c));
  }
  // The block of part k (< w.parts) of a split tile: the blocks first..last all hold positions,
  // unless there are fewer positions than blocks, when each of the tile's positions is its own
  // block's. (The merge asks it of each part: no division but block_of's, where asking each
  // block first..last whether it holds any took two each.)
  __host__ __device__ int part_block(const Work& w, int k) const {
    return total >= grid ? w.first + k : block_of(w.pos + k);
  }
  // Block c's scratch slot for its part of a split tile: 2c + 1 for the tile's first block (the
  // tile begins in its run and goes on), 2c for the others (the tile began before their runs).
  __host__ __device__ static int part_slot(const Work& w, int c) { return 2 * c + (c == w.first); }
  // next() for a run made with place_now false: placed at its first piece after the whole
  // tiles. (A separate entry, so that the consumers' next() holds no copy of place.)
  __host__ __device__ bool next_late(const attention_detail::Geometry& g, Work& w) {
    if (!placed && turn >= whole_turns) place(g);
    return next(g, w);
  }
  // The next piece (placed: made with place_now, or by next_late).
  __host__ __device__ bool next(const attention_detail::Geometry& g, Work& w) {
    if (turn < whole_turns) {
      const Tile t = tile_of(tile_index(turn++, block, grid, g.causal), g, m_blocks);
      w.whole(t, key_tiles<C>(t.m_block * C::BM, g));
      return true;
    }
    if (tile >= tiles) return false;
    if (pos > end || (pos == end && block + 1 != grid)) return false;
    w.tile = tile_of(static_cast<unsigned>(tile), g, m_blocks);
    w.len = key_tiles<C>(w.tile.m_block * C::BM, g);
    w.pos = pos;
    w.tb = static_cast<int>(start > pos ? start - pos : 0);
    w.te = static_cast<int>(end - pos < w.len ? end - pos : w.len);
    w.parts = 1;
    if (w.len > 0 && (pos < start || pos + w.len > end)) {
      w.first = block_of(pos);
      w.last = block_of(pos + w.len - 1);
      // With fewer positions than blocks each block that holds any holds one.
      w.parts = total >= grid ? w.last - w.first + 1 : w.len;
      w.slot = part_slot(w, block);
    }
    pos += w.len;
    ++tile;
    return true;
  }
};

// The pieces a block takes, in order: without STREAM (or scratch) the whole tiles of tile_at,
// one a turn; with it, StreamRun's. The producer and the consumers walk it alike.
// kLate: Stream-K's placement waits for the first piece after the whole tiles (the producer).
template <class C, bool kLate>
struct Walk {
  bool stream;
  int turn = 0;
  StreamRun<C> run;

  __device__ Walk(const attention_detail::Geometry& g, bool use_stream)
      : stream(use_stream),
        run(use_stream ? g : attention_detail::Geometry{}, static_cast<int>(blockIdx.x),
            static_cast<int>(gridDim.x), !kLate) {}
  __device__ bool next(const attention_detail::Geometry& g, Work& w) {
    if (stream) return kLate ? run.next_late(g, w) : run.next(g, w);
    Tile t;
    if (!tile_at<C>(turn++, g, t)) return false;
    w.whole(t, key_tiles<C>(t.m_block * C::BM, g));
    return true;
  }
};

template <class C, bool kHalf>
__device__ void attention_block(float* __restrict__ lse, float* __restrict__ o_part,
                                unsigned* __restrict__ counter, const attention_detail::Geometry g,
                                const TensorMap& map_q, const TensorMap& map_k,
                                const TensorMap& map_v, const TensorMap& map_o) {
  constexpr int D = C::D, BN = C::BN, STAGES = C::STAGES;
  // The swizzle is a function of address bits: the tiles start 1024-byte aligned.
  constexpr int QS = C::kQSlots;
  const unsigned raw = shared_address(attention_smem);
  const auto q_tile = [&](int slot) {
    return ((raw + 1023u) & ~1023u) + static_cast<unsigned>(slot * C::kQBytes);
  };
  const unsigned kv_s = q_tile(QS);
  const auto k_tile = [&](int s) { return kv_s + static_cast<unsigned>(s * 2 * C::kTileBytes); };
  const auto v_tile = [&](int s) { return k_tile(s) + static_cast<unsigned>(C::kTileBytes); };
  const unsigned bars = kv_s + static_cast<unsigned>(STAGES * 2 * C::kTileBytes);
  const auto q_full = [&](int slot) { return bars + 8u * slot; };
  // A Q buffer free again: the consumers are done with its rows and their output staged there
  // is stored (persistent blocks only).
  const auto q_empty = [&](int slot) { return bars + 8u * (QS + slot); };
  const auto k_full = [&](int s) { return bars + 8u * (2 * QS + s); };
  const auto v_full = [&](int s) { return bars + 8u * (2 * QS + STAGES + s); };
  const auto k_empty = [&](int s) { return bars + 8u * (2 * QS + 2 * STAGES + s); };
  const auto v_empty = [&](int s) { return bars + 8u * (2 * QS + 3 * STAGES + s); };
  const int shift = g.seq_k - g.seq_q;  // key j is visible to position i when j <= i + shift
  const bool stream = C::STREAM && o_part != nullptr && counter != nullptr;

  if (threadIdx.x == 0) {
    prefetch_tensor_map(map_q);
    prefetch_tensor_map(map_o);
    if (g.seq_k > 0) {  // else K and V may be empty, their maps zeros
      prefetch_tensor_map(map_k);
      prefetch_tensor_map(map_v);
    }
    for (int slot = 0; slot < QS; ++slot) {
      mbar_init(q_full(slot), 1);
      mbar_init(q_empty(slot), C::CONSUMERS);  // each consumer's thread 0
    }
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(k_full(s), 1);  // the issuing thread's arrival and its copies' bytes
      mbar_init(v_full(s), 1);
      mbar_init(k_empty(s), 4 * C::CONSUMERS);  // each consumer warp
      mbar_init(v_empty(s), 4 * C::CONSUMERS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    // The producer: one thread issues every copy; K of a tile before its V, as they are used.
    // A persistent block's ring of K and V stages runs on across its tiles (`it` counts the
    // key tiles issued) and its tiles' Q alternate between two buffers, so the next tile's Q
    // and first keys load while the consumers finish this one.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
    if (threadIdx.x != 0) return;
    int it = 0;
    const auto load_kv = [&](int t, const Tile& tile) {
      const int s = it % STAGES;
      const unsigned free_parity = ((it / STAGES) & 1) ^ 1;
      const int kvh = tile.head / g.group;
      if (it >= STAGES) mbar_wait(k_empty(s), free_parity);
      mbar_arrive_expect_bytes(k_full(s), C::kTileBytes);
#pragma unroll
      for (int blk = 0; blk < C::kBlocks; ++blk)
        tma_load_4d(k_tile(s) + blk * C::kKvBlockBytes, map_k, 64 * blk, kvh, t * BN, tile.b,
                    k_full(s));
      if (it >= STAGES) mbar_wait(v_empty(s), free_parity);
      mbar_arrive_expect_bytes(v_full(s), C::kTileBytes);
#pragma unroll
      for (int blk = 0; blk < C::kBlocks; ++blk)
        tma_load_4d(v_tile(s) + blk * C::kKvBlockBytes, map_v, 64 * blk, kvh, t * BN, tile.b,
                    v_full(s));
      ++it;
    };
    Walk<C, true> walk(g, stream);
    Work w;
    for (int turn = 0; walk.next(g, w); ++turn) {
      const Tile& tile = w.tile;
      const int slot = turn % QS;
      if (turn >= QS) mbar_wait(q_empty(slot), ((turn / QS) & 1) ^ 1);
      mbar_arrive_expect_bytes(q_full(slot), C::kQBytes);
#pragma unroll
      for (int blk = 0; blk < C::kBlocks; ++blk)
        tma_load_4d(q_tile(slot) + blk * C::kQBlockBytes, map_q, 64 * blk, tile.head,
                    tile.m_block * C::BM, tile.b, q_full(slot));
      for (int t = w.tb; t < w.te; ++t) load_kv(t, tile);
    }
    return;
  }

  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(C::kConsumerRegs));
  const int consumer = warpgroup - 1;
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const float scale_log2 = rsqrtf(static_cast<float>(D)) * kLog2e;

  int it = 0;              // key tiles consumed before this piece's (the ring's position)
  bool handed_on = false;  // consumer 1: this tile's first arrival was made at the last one's end
  Walk<C, false> walk(g, stream);
  Work w;
  for (int turn = 0; walk.next(g, w); ++turn) {
    const Tile& tile = w.tile;
    const int tb = w.tb, te = w.te;  // the piece's key tiles
    const int slot = turn % QS;
    const unsigned q_c = q_tile(slot) + static_cast<unsigned>(consumer * 64 * 128);  // its rows
    const int m0 = tile.m_block * C::BM;
    const int c0 = m0 + consumer * 64;         // its first row
    const int r0 = c0 + warp * 16 + lane / 4;  // this thread's rows
    int limit[2];
#pragma unroll
    for (int h = 0; h < 2; ++h)
      limit[h] = g.causal ? min(g.seq_k, r0 + 8 * h + shift + 1) : g.seq_k;

    float acc[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) acc[i] = 0.f;
    RowState st{{ATT_NEG_INF, ATT_NEG_INF}, {0.f, 0.f}};
    float s[BN / 2];
    unsigned p[BN / 4];
    float alpha[2];
    const auto stage_of = [&](int t) { return (it + t - tb) % STAGES; };
    const auto parity_of = [&](int t) {
      return static_cast<unsigned>(((it + t - tb) / STAGES) & 1);
    };

    // S = Q K^T for tile stage `stage`: k-step kk is 16 columns of a 64-column block.
    const auto qk = [&](int stage) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const unsigned col = static_cast<unsigned>((kk % 4) * 32);
        wgmma_qk<BN, kHalf>(s, descriptor(q_c + (kk / 4) * C::kQBlockBytes + col, 16),
                            descriptor(k_tile(stage) + (kk / 4) * C::kKvBlockBytes + col, 16),
                            kk > 0);
      }
      wgmma_commit();
    };
    // O += P V for tile stage `stage`: k-step kk is 16 keys (16 rows of 128 bytes in each block).
    const auto pv = [&](int stage) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
        wgmma_pv<D, kHalf>(acc, p + 4 * kk,
                           descriptor(v_tile(stage) + kk * 2048, C::kKvBlockBytes));
      wgmma_commit();
    };
    // Masks only tiles that pass the end or, causal, the diagonal of this warpgroup's rows.
    const auto needs_mask = [&](int t) {
      const int n0 = t * BN;
      return n0 + BN > g.seq_k || (g.causal && n0 + BN - 1 > c0 + shift);
    };
    const auto release = [&](unsigned bar) {
      if (lane == 0) mbar_arrive(bar);
    };
    // The softmax of tile t's scores, masked only where the tile passes the end or the
    // diagonal, decided at run time (the first tile, and every tile without OVERLAP).
    const auto softmax = [&](int t) {
      const bool mask = needs_mask(t);
      const int lim[2] = {mask ? limit[0] : 0x7fffffff, mask ? limit[1] : 0x7fffffff};
      online_softmax<BN, true, C::LAZY>(s, st, alpha, t * BN, lim, lane, scale_log2);
    };
    // The first tile needs_mask holds for (it holds for every later one): the tiles before it
    // are softmaxed without the mask's compares.
    int first_masked = g.seq_k / BN;
    if (g.causal) {
      const int visible = c0 + shift + 1;  // keys [0, visible) are visible to row c0
      first_masked = min(first_masked, visible > 0 ? visible / BN : 0);
    }
    // Ping-pong turns: consumer c waits on barrier 4 + c for the other's arrival there, issues
    // its wgmma, then lets the other go. Consumer 0 takes the first turn of each tile. With
    // ATT90_HANDOFF, consumer 1's arrival after its last turn of a tile is consumer 0's first
    // turn of the block's next tile that has turns, so consumer 0 starts that tile's Q K^T and
    // softmax while consumer 1 finishes its P V and stores its output; consumer 1 arrives at the
    // start of a tile only where no arrival was handed on. Without it, consumer 1 leaves out
    // the arrival after its last turn and lets consumer 0 go at its next tile's start.
    bool hand_on = false;  // consumer 1: the block's next tile has turns (arrive after the last)
    if constexpr (C::PINGPONG && C::HANDOFF) {
      Walk<C, false> ahead = walk;
      Work next;
      hand_on = consumer == 1 && ahead.next(g, next) && next.te > next.tb;
    }
    const auto turn_begin = [&] {
      if constexpr (C::PINGPONG) asm volatile("bar.sync %0, 256;\n" ::"r"(4 + consumer) : "memory");
    };
    const auto turn_end = [&](bool last) {
      if constexpr (C::PINGPONG)
        if (!(last && consumer == 1 && !hand_on))
          asm volatile("bar.arrive %0, 256;\n" ::"r"(4 + (consumer ^ 1)) : "memory");
    };

    mbar_wait(q_full(slot), (turn / QS) & 1);
    if constexpr (!C::OVERLAP) {
      for (int t = tb; t < te; ++t) {
        const int stage = stage_of(t);
        const unsigned parity = parity_of(t);
        mbar_wait(k_full(stage), parity);
        qk(stage);
        wgmma_wait<0>();
        fence_registers(s);
        release(k_empty(stage));
        softmax(t);
        rescale<D, C::LAZY>(acc, alpha);
        pack_p<BN, kHalf>(p, s);
        mbar_wait(v_full(stage), parity);
        pv(stage);
        wgmma_wait<0>();
        fence_registers(acc);
        fence_registers(p);
        release(v_empty(stage));
      }
    } else if (te > tb) {
      // The first tile's scores, then for each later tile: its Q K^T issued, the one before's
      // P V issued, the scores' softmax while P V runs, and O rescaled once P V is done. The
      // waits for the tiles come before a turn, so a turn only issues.
      if (C::PINGPONG && consumer == 1 && !handed_on)
        asm volatile("bar.arrive %0, 256;\n" ::"r"(4) : "memory");
      mbar_wait(k_full(stage_of(tb)), parity_of(tb));
      turn_begin();
      qk(stage_of(tb));
      turn_end(false);
      wgmma_wait<0>();
      fence_registers(s);
      release(k_empty(stage_of(tb)));
      softmax(tb);
      pack_p<BN, kHalf>(p, s);
      // One turn per tile in both loops, so the consumers' turns still alternate.
      // `masked` is a constant at each call, so the inlined softmax is the masked or the
      // unmasked one (a generic lambda would be host code to NVRTC).
      const auto step = [&](int t, bool masked) {
        const int stage = stage_of(t);
        const int prev = stage_of(t - 1);
        mbar_wait(k_full(stage), parity_of(t));
        mbar_wait(v_full(prev), parity_of(t - 1));
        turn_begin();
        qk(stage);
        pv(prev);
        turn_end(false);
        wgmma_wait<1>();  // Q K^T of tile t is done (groups complete in order)
        fence_registers(s);
        release(k_empty(stage));
        if (masked)
          online_softmax<BN, true, C::LAZY>(s, st, alpha, t * BN, limit, lane, scale_log2);
        else
          online_softmax<BN, false, C::LAZY>(s, st, alpha, t * BN, limit, lane, scale_log2);
        wgmma_wait<0>();  // P V of tile t - 1 is done
        fence_registers(acc);
        fence_registers(p);
        release(v_empty(prev));
        rescale<D, C::LAZY>(acc, alpha);
        pack_p<BN, kHalf>(p, s);
      };
      int t = tb + 1;
      for (; t < min(first_masked, te); ++t) step(t, false);
      for (; t < te; ++t) step(t, true);
      const int last = stage_of(te - 1);
      mbar_wait(v_full(last), parity_of(te - 1));
      turn_begin();
      pv(last);
      turn_end(true);
      wgmma_wait<0>();
      fence_registers(acc);
      fence_registers(p);
      release(v_empty(last));
      handed_on = hand_on;
    }
    it += te - tb;

    // A piece of a tile whose keys other blocks share: its unnormalised output and row states
    // go to its scratch slot; the last part to arrive (the ticket of the tile's first block)
    // merges the others' into its own registers and finishes the tile below. The ticket is one
    // acquire-release atomic by thread 0 between two barriers, as the decode kernel's.
    if constexpr (C::STREAM) {
      if (w.parts > 1) {
        __shared__ unsigned is_last[C::CONSUMERS];
        const int tid = threadIdx.x % 128;
        const auto part_of = [&](int part_slot) {
          return reinterpret_cast<float4*>(o_part) +
                 (static_cast<long long>(part_slot) * C::CONSUMERS + consumer) * (D / 8 + 1) * 128;
        };
        float4* mine = part_of(w.slot);
#pragma unroll
        for (int j = 0; j < D / 8; ++j)
          mine[j * 128 + tid] =
              make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
        mine[(D / 8) * 128 + tid] = make_float4(st.max[0], st.max[1], st.sum[0], st.sum[1]);
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
        if (tid == 0) {
          unsigned* ticket = counter + w.first * C::CONSUMERS + consumer;
          is_last[consumer] = attention_detail::atomic_add_acq_rel(ticket, 1u) ==
                              static_cast<unsigned>(w.parts - 1);
          if (is_last[consumer]) *ticket = 0u;  // left zero for the next launch
        }
        asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
        if (!is_last[consumer]) {
          if (tid == 0) mbar_arrive(q_empty(slot));
          continue;
        }
#pragma unroll 1
        for (int k = 0; k < w.parts; ++k) {
          const int c = walk.run.part_block(w, k);
          if (c == static_cast<int>(blockIdx.x)) continue;
          const float4* other = part_of(StreamRun<C>::part_slot(w, c));
          const float4 state = __ldcg(other + (D / 8) * 128 + tid);
          const float their_max[2] = {state.x, state.y}, their_sum[2] = {state.z, state.w};
          float mine_f[2], their_f[2];
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const float m_new = fmaxf(st.max[h], their_max[h]);
            const float m_use = m_new == ATT_NEG_INF ? 0.f : m_new;
            mine_f[h] = fast_exp2(st.max[h] - m_use);
            their_f[h] = fast_exp2(their_max[h] - m_use);
            st.sum[h] = st.sum[h] * mine_f[h] + their_sum[h] * their_f[h];
            st.max[h] = m_new;
          }
#pragma unroll
          for (int j = 0; j < D / 8; ++j) {
            const float4 x = __ldcg(other + j * 128 + tid);
            acc[4 * j] = acc[4 * j] * mine_f[0] + x.x * their_f[0];
            acc[4 * j + 1] = acc[4 * j + 1] * mine_f[0] + x.y * their_f[0];
            acc[4 * j + 2] = acc[4 * j + 2] * mine_f[1] + x.z * their_f[1];
            acc[4 * j + 3] = acc[4 * j + 3] * mine_f[1] + x.w * their_f[1];
          }
        }
      }
    }

    // The epilogue: the quad's sums, O normalised into this warpgroup's own Q rows of shared
    // memory (its last Q K^T is done) in the swizzle map_o's boxes use, then TMA stores.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      st.sum[h] += __shfl_xor_sync(0xffffffffu, st.sum[h], 1);
      st.sum[h] += __shfl_xor_sync(0xffffffffu, st.sum[h], 2);
    }
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) inv[h] = st.sum[h] > 0.f ? 1.f / st.sum[h] : 0.f;
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = warp * 16 + lane / 4 + 8 * h;  // row in the warpgroup's 64
        const unsigned addr =
            q_c + (j / 8) * C::kQBlockBytes + r * 128 + (((j % 8) ^ (r % 8)) << 4) + (lane % 4) * 4;
        const unsigned v =
            pack2<kHalf>(acc[4 * j + 2 * h] * inv[h], acc[4 * j + 2 * h + 1] * inv[h]);
        asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
      }
    }
    // The staging's writes (generic proxy) made visible to the TMA store, then the
    // warpgroup's own barrier (1 + consumer; barrier 0 is __syncthreads).
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + consumer) : "memory");
    if (threadIdx.x % 128 == 0 && c0 < g.seq_q) {
#pragma unroll
      for (int blk = 0; blk < C::kBlocks; ++blk)
        tma_store_4d(map_o, q_c + blk * C::kQBlockBytes, 64 * blk, tile.head, c0, tile.b);
      asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r0 + 8 * h;
      if (lane % 4 == 0 && row < g.seq_q)
        lse[(static_cast<long long>(tile.b) * g.heads + tile.head) * g.seq_q + row] =
            st.sum[h] > 0.f ? (st.max[h] + log2f(st.sum[h])) * kLn2 : ATT_NEG_INF;
    }
    // Before shared memory goes (or the next tile's Q lands in it), the stores need only have
    // read it (their writes complete on their own).
    if (threadIdx.x % 128 == 0) {
      if (c0 < g.seq_q) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
      if constexpr (C::CTAS > 0) mbar_arrive(q_empty(slot));
    }
  }
}

// A kernel's body: the block of its configuration for head_dim 128 or 64 (another writes
// nothing).
template <template <int> class Cfg, bool kHalf>
__device__ __forceinline__ void attention_kernel(
    float* __restrict__ lse, float* __restrict__ o_part, unsigned* __restrict__ counter, int batch,
    int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal, const TensorMap& map_q,
    const TensorMap& map_k, const TensorMap& map_v, const TensorMap& map_o) {
  const attention_detail::Geometry g{batch, seq_q, seq_k, heads, kv_heads, heads / kv_heads,
                                     causal};
  if (head_dim == 128)
    attention_block<Cfg<128>, kHalf>(lse, o_part, counter, g, map_q, map_k, map_v, map_o);
  else if (head_dim == 64)
    attention_block<Cfg<64>, kHalf>(lse, o_part, counter, g, map_q, map_k, map_v, map_o);
}

}  // namespace attention_sm90_detail

template <int D>
using Att90Config =
    attention_sm90_detail::Config<D, ATT90_BN, ATT90_CONSUMERS, ATT90_STAGES, ATT90_OVERLAP != 0,
                                  ATT90_PINGPONG != 0, ATT90_LAZY != 0, ATT90_CTAS,
                                  ATT90_STREAM != 0, ATT90_HANDOFF != 0>;
template <int D>
using Att90HConfig =
    attention_sm90_detail::Config<D, ATT90H_BN, ATT90H_CONSUMERS, ATT90H_STAGES,
                                  ATT90H_OVERLAP != 0, ATT90H_PINGPONG != 0, ATT90H_LAZY != 0,
                                  ATT90H_CTAS, ATT90H_STREAM != 0, ATT90H_HANDOFF != 0>;
#endif

#if ATT_HAS(2)
// clang-format off
/* @kernelevo
id: attention_fwd_sm90
kernel: attention_fwd_sm90
arch: sm_90a
params:
  ATT90_BN: [64, 128, 176, 192]
  ATT90_CONSUMERS: [1, 2, 3]
  ATT90_STAGES: [1, 2, 3]
  ATT90_OVERLAP: [0, 1]
  ATT90_PINGPONG: [0, 1]
  ATT90_LAZY: [0, 1]
  ATT90_CTAS: [0, 132]
  # Stream-K over the persistent blocks (ATT90_CTAS > 0; without it, no effect)
  ATT90_STREAM: [0, 1]
  # ping-pong's hand-off from one tile to the next (ATT90_PINGPONG; without it, no effect)
  ATT90_HANDOFF: [0, 1]
let:
  BM: "64 * ATT90_CONSUMERS"
  STREAM: "ATT90_STREAM * (ATT90_CTAS > 0)"
  # Persistent blocks (CTAS) keep two Q tiles.
  QSLOTS: "1 + (ATT90_CTAS > 0)"
  BARRIERS: "8 * (2 * QSLOTS + 4 * ATT90_STAGES)"
  # A consumer's registers (setmaxnreg): what the producer's 24 leave, at most 256.
  REGS: "min(256, (65536 - 24 * 128) / (128 * ATT90_CONSUMERS) / 8 * 8)"
constraints:
  - "(64 * ATT90_CONSUMERS * QSLOTS + 2 * ATT90_STAGES * ATT90_BN) * 256 + BARRIERS + 1024 <= 227 * 1024"
  # S, O and about 40 more per thread: ptxas spills past it (measured at stages 2, head_dim 128)
  - "ATT90_BN / 2 + 64 + 40 <= REGS"
  - "ATT90_PINGPONG == 0 || (ATT90_CONSUMERS == 2 && ATT90_OVERLAP == 1)"
problems:
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
  # short sequences, where the schedule (ATT90_CTAS) matters most
  - {batch: 16, seq_q: 1024, seq_k: 1024, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 16, seq_q: 1024, seq_k: 1024, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
  # one long sequence: a bucket of its own when tuned per batch (init --dispatch batch); 8192,
  # not 16384, keeps the fp32 reference of every input set within an evaluation's 20 s
  - {batch: 1, seq_q: 8192, seq_k: 8192, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 1, seq_q: 8192, seq_k: 8192, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
validate:
  - {batch: 1, seq_q: 77, seq_k: 77, heads: 4, kv_heads: 1, head_dim: 64, causal: 1}
  - {batch: 2, seq_q: 33, seq_k: 150, heads: 6, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 1, seq_q: 130, seq_k: 61, heads: 2, kv_heads: 2, head_dim: 128, causal: 0}
  - {batch: 2, seq_q: 200, seq_k: 200, heads: 8, kv_heads: 8, head_dim: 64, causal: 0}
  - {batch: 1, seq_q: 300, seq_k: 100, heads: 4, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 3, seq_q: 1, seq_k: 1000, heads: 8, kv_heads: 1, head_dim: 128, causal: 0}
  # more query tiles than persistent blocks (ATT90_CTAS): blocks take several, of unequal length
  - {batch: 3, seq_q: 333, seq_k: 333, heads: 16, kv_heads: 2, head_dim: 128, causal: 1}
args:
  - {name: q, type: "const bfloat16*", count: "batch*seq_q*heads*head_dim", init: normal}
  - {name: k, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: v, type: "const bfloat16*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: o, type: "bfloat16*", count: "batch*seq_q*heads*head_dim", output: true}
  - {name: lse, type: "float*", count: "batch*heads*seq_q", output: true}
  # Stream-K's partial outputs (two slots a block, each consumer's 128 threads' head_dim / 2
  # values and row states) and the tickets (a block's and consumer's); one element without it
  - {name: o_part, type: "float*", count: "max(1, STREAM * 2 * ATT90_CTAS * ATT90_CONSUMERS * (head_dim / 8 + 1) * 512)", scratch: true}
  - {name: counter, type: "unsigned*", count: "max(1, STREAM * ATT90_CTAS * ATT90_CONSUMERS)", scratch: true}
  - {name: batch, type: int, value: batch}
  - {name: seq_q, type: int, value: seq_q}
  - {name: seq_k, type: int, value: seq_k}
  - {name: heads, type: int, value: heads}
  - {name: kv_heads, type: int, value: kv_heads}
  - {name: head_dim, type: int, value: head_dim}
  - {name: causal, type: int, value: causal}
  - {name: map_q, tensor_map: {of: q, dims: [head_dim, heads, seq_q, batch], box: [64, 1, BM, 1], swizzle: 128}}
  - {name: map_k, tensor_map: {of: k, dims: [head_dim, kv_heads, seq_k, batch], box: [64, 1, ATT90_BN, 1], swizzle: 128}}
  - {name: map_v, tensor_map: {of: v, dims: [head_dim, kv_heads, seq_k, batch], box: [64, 1, ATT90_BN, 1], swizzle: 128}}
  - {name: map_o, tensor_map: {of: o, dims: [head_dim, heads, seq_q, batch], box: [64, 1, 64, 1], swizzle: 128}}
launch:
  # ATT90_CTAS > 0: that many blocks at most, and no more than the SMs (or, without STREAM, the
  # tiles), one dimension
  grid: ["max(ceil_div(seq_q, BM) * (ATT90_CTAS == 0), min(min(ATT90_CTAS, sm_count), max(ceil_div(seq_q, BM) * heads * batch, STREAM * sm_count)))",
         "max(heads * (ATT90_CTAS == 0), 1)", "max(batch * (ATT90_CTAS == 0), 1)"]
  block: ["128 * (ATT90_CONSUMERS + 1)"]
  shared_bytes: "(BM * QSLOTS + 2 * ATT90_STAGES * ATT90_BN) * head_dim * 2 + BARRIERS + 1024"
reference: attention_fwd_sm90_naive
defines: ["ATT_ONLY=2"]
tolerance: {rtol: 2e-2, atol: 2e-2}
metrics: {flops: "4 * batch * heads * head_dim * (causal * (seq_q * seq_k - seq_q * (seq_q - 1) / 2) + (1 - causal) * seq_q * seq_k)", bytes: "(2 * batch * seq_q * heads + 2 * batch * seq_k * kv_heads) * head_dim * 2 + batch * heads * seq_q * 4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(128 * (ATT90_CONSUMERS + 1), 1) attention_fwd_sm90(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
    const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
    float* __restrict__ o_part, unsigned* __restrict__ counter, int batch, int seq_q, int seq_k,
    int heads, int kv_heads, int head_dim, int causal, const __grid_constant__ TensorMap map_q,
    const __grid_constant__ TensorMap map_k, const __grid_constant__ TensorMap map_v,
    const __grid_constant__ TensorMap map_o) {
  // q, k, v and o are read and written through the tensor maps.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  attention_sm90_detail::attention_kernel<Att90Config, false>(lse, o_part, counter, batch, seq_q,
                                                              seq_k, heads, kv_heads, head_dim,
                                                              causal, map_q, map_k, map_v, map_o);
#else
  __trap();  // wgmma and setmaxnreg need sm_90a
#endif
}

// The reference takes the tensor maps too (one argument list) and ignores them.
extern "C" __global__ void attention_fwd_sm90_naive(
    const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
    const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, float* __restrict__ lse,
    float* __restrict__, unsigned* __restrict__, int batch, int seq_q, int seq_k, int heads,
    int kv_heads, int head_dim, int causal, const __grid_constant__ TensorMap,
    const __grid_constant__ TensorMap, const __grid_constant__ TensorMap,
    const __grid_constant__ TensorMap) {
  attention_detail::attention_naive(q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, head_dim,
                                    causal);
}
#endif

#if ATT_HAS(3)
// clang-format off
/* @kernelevo
id: attention_fwd_sm90_f16
kernel: attention_fwd_sm90_f16
arch: sm_90a
params:
  ATT90H_BN: [64, 128, 176, 192]
  ATT90H_CONSUMERS: [1, 2, 3]
  ATT90H_STAGES: [1, 2, 3]
  ATT90H_OVERLAP: [0, 1]
  ATT90H_PINGPONG: [0, 1]
  ATT90H_LAZY: [0, 1]
  ATT90H_CTAS: [0, 132]
  # Stream-K over the persistent blocks (ATT90H_CTAS > 0; without it, no effect)
  ATT90H_STREAM: [0, 1]
  # ping-pong's hand-off from one tile to the next (ATT90H_PINGPONG; without it, no effect)
  ATT90H_HANDOFF: [0, 1]
let:
  BM: "64 * ATT90H_CONSUMERS"
  STREAM: "ATT90H_STREAM * (ATT90H_CTAS > 0)"
  # Persistent blocks (CTAS) keep two Q tiles.
  QSLOTS: "1 + (ATT90H_CTAS > 0)"
  BARRIERS: "8 * (2 * QSLOTS + 4 * ATT90H_STAGES)"
  # A consumer's registers (setmaxnreg): what the producer's 24 leave, at most 256.
  REGS: "min(256, (65536 - 24 * 128) / (128 * ATT90H_CONSUMERS) / 8 * 8)"
constraints:
  - "(64 * ATT90H_CONSUMERS * QSLOTS + 2 * ATT90H_STAGES * ATT90H_BN) * 256 + BARRIERS + 1024 <= 227 * 1024"
  # S, O and about 40 more per thread: ptxas spills past it (measured at stages 2, head_dim 128)
  - "ATT90H_BN / 2 + 64 + 40 <= REGS"
  - "ATT90H_PINGPONG == 0 || (ATT90H_CONSUMERS == 2 && ATT90H_OVERLAP == 1)"
problems:
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 4, seq_q: 4096, seq_k: 4096, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
  # short sequences, where the schedule (ATT90H_CTAS) matters most
  - {batch: 16, seq_q: 1024, seq_k: 1024, heads: 32, kv_heads: 4, head_dim: 128, causal: 1}
  - {batch: 16, seq_q: 1024, seq_k: 1024, heads: 32, kv_heads: 4, head_dim: 128, causal: 0}
validate:
  - {batch: 1, seq_q: 77, seq_k: 77, heads: 4, kv_heads: 1, head_dim: 64, causal: 1}
  - {batch: 2, seq_q: 33, seq_k: 150, heads: 6, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 1, seq_q: 130, seq_k: 61, heads: 2, kv_heads: 2, head_dim: 128, causal: 0}
  - {batch: 2, seq_q: 200, seq_k: 200, heads: 8, kv_heads: 8, head_dim: 64, causal: 0}
  - {batch: 1, seq_q: 300, seq_k: 100, heads: 4, kv_heads: 2, head_dim: 128, causal: 1}
  - {batch: 3, seq_q: 1, seq_k: 1000, heads: 8, kv_heads: 1, head_dim: 128, causal: 0}
  # more query tiles than persistent blocks (ATT90_CTAS): blocks take several, of unequal length
  - {batch: 3, seq_q: 333, seq_k: 333, heads: 16, kv_heads: 2, head_dim: 128, causal: 1}
args:
  - {name: q, type: "const half*", count: "batch*seq_q*heads*head_dim", init: normal}
  - {name: k, type: "const half*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: v, type: "const half*", count: "batch*seq_k*kv_heads*head_dim", init: normal}
  - {name: o, type: "half*", count: "batch*seq_q*heads*head_dim", output: true}
  - {name: lse, type: "float*", count: "batch*heads*seq_q", output: true}
  # Stream-K's partial outputs (two slots a block, each consumer's 128 threads' head_dim / 2
  # values and row states) and the tickets (a block's and consumer's); one element without it
  - {name: o_part, type: "float*", count: "max(1, STREAM * 2 * ATT90H_CTAS * ATT90H_CONSUMERS * (head_dim / 8 + 1) * 512)", scratch: true}
  - {name: counter, type: "unsigned*", count: "max(1, STREAM * ATT90H_CTAS * ATT90H_CONSUMERS)", scratch: true}
  - {name: batch, type: int, value: batch}
  - {name: seq_q, type: int, value: seq_q}
  - {name: seq_k, type: int, value: seq_k}
  - {name: heads, type: int, value: heads}
  - {name: kv_heads, type: int, value: kv_heads}
  - {name: head_dim, type: int, value: head_dim}
  - {name: causal, type: int, value: causal}
  - {name: map_q, tensor_map: {of: q, dims: [head_dim, heads, seq_q, batch], box: [64, 1, BM, 1], swizzle: 128}}
  - {name: map_k, tensor_map: {of: k, dims: [head_dim, kv_heads, seq_k, batch], box: [64, 1, ATT90H_BN, 1], swizzle: 128}}
  - {name: map_v, tensor_map: {of: v, dims: [head_dim, kv_heads, seq_k, batch], box: [64, 1, ATT90H_BN, 1], swizzle: 128}}
  - {name: map_o, tensor_map: {of: o, dims: [head_dim, heads, seq_q, batch], box: [64, 1, 64, 1], swizzle: 128}}
launch:
  # ATT90H_CTAS > 0: that many blocks at most, and no more than the SMs (or, without STREAM, the
  # tiles), one dimension
  grid: ["max(ceil_div(seq_q, BM) * (ATT90H_CTAS == 0), min(min(ATT90H_CTAS, sm_count), max(ceil_div(seq_q, BM) * heads * batch, STREAM * sm_count)))",
         "max(heads * (ATT90H_CTAS == 0), 1)", "max(batch * (ATT90H_CTAS == 0), 1)"]
  block: ["128 * (ATT90H_CONSUMERS + 1)"]
  shared_bytes: "(BM * QSLOTS + 2 * ATT90H_STAGES * ATT90H_BN) * head_dim * 2 + BARRIERS + 1024"
reference: attention_fwd_sm90_f16_naive
defines: ["ATT_ONLY=3"]
tolerance: {rtol: 2e-2, atol: 2e-2}
metrics: {flops: "4 * batch * heads * head_dim * (causal * (seq_q * seq_k - seq_q * (seq_q - 1) / 2) + (1 - causal) * seq_q * seq_k)", bytes: "(2 * batch * seq_q * heads + 2 * batch * seq_k * kv_heads) * head_dim * 2 + batch * heads * seq_q * 4"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(128 * (ATT90H_CONSUMERS + 1), 1)
    attention_fwd_sm90_f16(const __half* __restrict__ q, const __half* __restrict__ k,
                           const __half* __restrict__ v, __half* __restrict__ o,
                           float* __restrict__ lse, float* __restrict__ o_part,
                           unsigned* __restrict__ counter, int batch, int seq_q, int seq_k,
                           int heads, int kv_heads, int head_dim, int causal,
                           const __grid_constant__ TensorMap map_q,
                           const __grid_constant__ TensorMap map_k,
                           const __grid_constant__ TensorMap map_v,
                           const __grid_constant__ TensorMap map_o) {
  // q, k, v and o are read and written through the tensor maps.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  attention_sm90_detail::attention_kernel<Att90HConfig, true>(lse, o_part, counter, batch, seq_q,
                                                              seq_k, heads, kv_heads, head_dim,
                                                              causal, map_q, map_k, map_v, map_o);
#else
  __trap();  // wgmma and setmaxnreg need sm_90a
#endif
}

extern "C" __global__ void attention_fwd_sm90_f16_naive(
    const __half* __restrict__ q, const __half* __restrict__ k, const __half* __restrict__ v,
    __half* __restrict__ o, float* __restrict__ lse, float* __restrict__, unsigned* __restrict__,
    int batch, int seq_q, int seq_k, int heads, int kv_heads, int head_dim, int causal,
    const __grid_constant__ TensorMap, const __grid_constant__ TensorMap,
    const __grid_constant__ TensorMap, const __grid_constant__ TensorMap) {
  attention_detail::attention_naive(q, k, v, o, lse, batch, seq_q, seq_k, heads, kv_heads, head_dim,
                                    causal);
}
#endif

// ---------------------------------------------------------------------------------------------
// Launchers for a program (host code, compiled by nvcc, not by NVRTC): each kernel launched as
// its spec launches it, with this build's parameter values, on [batch, seq, heads, head_dim]
// buffers (16-byte aligned; head_dim 64 or 128, else cudaErrorInvalidValue). The Hopper
// kernels' tensor maps are encoded as kernelevo's runner encodes them, through the runtime's
// driver entry point (no -lcuda). The decode kernel's scratch is the caller's: `o_part`
// 64 * batch * seq_q * heads * head_dim floats, `lse_part` 64 * batch * seq_q * heads floats,
// `counter` batch * seq_q * heads unsigned ints, zeroed before the first call (the kernel
// leaves them zero). So is the Hopper prefill kernels' (used with ATT90_STREAM, any build's
// parameters): `o_part` 2 * 132 * 3 * (head_dim / 8 + 1) * 512 floats (27.6 MB at head_dim
// 128), `counter` 396 unsigned ints zeroed before the first call; or both null, and the blocks
// take whole query tiles. A copy made by `kernelevo init --dispatch` lists them in `entries`.
#if !defined(__CUDACC_RTC__)
#include <cudaTypedefs.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

namespace attention_host {

inline bool shape_ok(int batch, int seq_q, int seq_k, int heads, int kv_heads, int head_dim) {
  return batch >= 0 && seq_q >= 0 && seq_k >= 0 && heads > 0 && kv_heads > 0 &&
         heads % kv_heads == 0 && (head_dim == 64 || head_dim == 128);
}

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

template <class Cfg>
inline cudaError_t launch_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                  const __nv_bfloat16* v, __nv_bfloat16* o, float* lse, int batch,
                                  int seq_q, int seq_k, int heads, int kv_heads, int head_dim,
                                  int causal, cudaStream_t stream,
                                  void (*kernel)(const __nv_bfloat16*, const __nv_bfloat16*,
                                                 const __nv_bfloat16*, __nv_bfloat16*, float*, int,
                                                 int, int, int, int, int, int)) {
  if (!shape_ok(batch, seq_q, seq_k, heads, kv_heads, head_dim)) return cudaErrorInvalidValue;
  if (batch == 0 || seq_q == 0) return cudaSuccess;
  const int group = heads / kv_heads;
  const long long rows = Cfg::GROUP_ROWS ? static_cast<long long>(seq_q) * group : seq_q;
  const long long units = static_cast<long long>(batch) * (Cfg::GROUP_ROWS ? kv_heads : heads);
  const long long tile = (Cfg::BM + Cfg::STAGES * 2LL * Cfg::BN * Cfg::WN) * head_dim * 2;
  const long long merge = Cfg::WN > 1 ? (Cfg::WN * Cfg::BM * (head_dim + 10LL) + Cfg::BM) * 4 : 0;
  const long long shared = tile > merge ? tile : merge;
  const long long blocks = (rows + Cfg::BM - 1) / Cfg::BM;
  if (blocks > 0x7fffffff || units > 65535) return cudaErrorInvalidConfiguration;
  const cudaError_t e = allow_shared(reinterpret_cast<const void*>(kernel), shared);
  if (e != cudaSuccess) return e;
  kernel<<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(units)), Cfg::kThreads,
           static_cast<size_t>(shared), stream>>>(q, k, v, o, lse, batch, seq_q, seq_k, heads,
                                                  kv_heads, head_dim, causal);
  return cudaGetLastError();
}

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
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

// The map of a dense [batch, seq, heads, head_dim] tensor of 16-bit values, boxes of 64 values
// of one head over `rows` positions in the 128-byte swizzle, zeros out of bounds; all zeros
// where the driver cannot describe it (an empty dimension, an unaligned base), which the
// kernels never read then.
inline cudaError_t encode_bshd(TensorMap& map, CUtensorMapDataType type, const void* base,
                               int batch, int seq, int heads, int head_dim, unsigned rows) {
  map = TensorMap{};
  if (batch < 1 || seq < 1 || heads < 1 || reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return cudaSuccess;
  const auto encode = tensor_map_encoder();
  if (!encode) return cudaErrorNotSupported;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(seq), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {dims[0] * 2, dims[0] * dims[1] * 2,
                                 dims[0] * dims[1] * dims[2] * 2};
  if (strides[2] >= (1ull << 40)) return cudaErrorInvalidValue;
  const cuuint32_t box[4] = {64, 1, rows, 1};
  const cuuint32_t element_strides[4] = {1, 1, 1, 1};
  const CUresult r =
      encode(reinterpret_cast<CUtensorMap*>(&map), type, 4, const_cast<void*>(base), dims, strides,
             box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <class Cfg, class T>
inline cudaError_t launch_sm90(const T* q, const T* k, const T* v, T* o, float* lse, float* o_part,
                               unsigned* counter, int batch, int seq_q, int seq_k, int heads,
                               int kv_heads, int head_dim, int causal, cudaStream_t stream,
                               CUtensorMapDataType type,
                               void (*kernel)(const T*, const T*, const T*, T*, float*, float*,
                                              unsigned*, int, int, int, int, int, int, int,
                                              TensorMap, TensorMap, TensorMap, TensorMap)) {
  static_assert(!Cfg::STREAM || Cfg::CTAS <= 132,
                "Stream-K's scratch (the launchers' comment) is sized for at most 132 blocks");
  if (!shape_ok(batch, seq_q, seq_k, heads, kv_heads, head_dim)) return cudaErrorInvalidValue;
  if (batch == 0 || seq_q == 0) return cudaSuccess;
  TensorMap maps[4];
  cudaError_t e = encode_bshd(maps[0], type, q, batch, seq_q, heads, head_dim, Cfg::BM);
  if (e == cudaSuccess)
    e = encode_bshd(maps[1], type, k, batch, seq_k, kv_heads, head_dim, Cfg::BN);
  if (e == cudaSuccess)
    e = encode_bshd(maps[2], type, v, batch, seq_k, kv_heads, head_dim, Cfg::BN);
  if (e == cudaSuccess) e = encode_bshd(maps[3], type, o, batch, seq_q, heads, head_dim, 64);
  if (e != cudaSuccess) return e;
  const long long shared = (Cfg::BM * Cfg::kQSlots + 2LL * Cfg::STAGES * Cfg::BN) * head_dim * 2 +
                           8 * (2 * Cfg::kQSlots + 4 * Cfg::STAGES) + 1024;
  const long long blocks = (seq_q + Cfg::BM - 1) / Cfg::BM;
  if (heads > 65535 || batch > 65535) return cudaErrorInvalidConfiguration;
  e = allow_shared(reinterpret_cast<const void*>(kernel), shared);
  if (e != cudaSuccess) return e;
  const long long tiles = blocks * heads * batch;
  if (Cfg::CTAS > 0 && tiles > 0x7fffffff) return cudaErrorInvalidConfiguration;
  long long ctas = Cfg::CTAS;  // persistent: at most CTAS blocks, the SMs, the tiles
  if (Cfg::CTAS > 0) {
    int device = 0, sms = 0;
    e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) return e;
    if (sms < ctas) ctas = sms;
    // Stream-K shares the key tiles over every block; whole tiles need no more blocks than tiles.
    const bool stream_k = Cfg::STREAM && o_part != nullptr && counter != nullptr;
    if (!stream_k && tiles < ctas) ctas = tiles;
  }
  const dim3 grid = Cfg::CTAS == 0
                        ? dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(heads),
                               static_cast<unsigned>(batch))
                        : dim3(static_cast<unsigned>(ctas));
  kernel<<<grid, Cfg::kThreads, static_cast<size_t>(shared), stream>>>(
      q, k, v, o, lse, o_part, counter, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal,
      maps[0], maps[1], maps[2], maps[3]);
  return cudaGetLastError();
}
#endif

}  // namespace attention_host

#if ATT_HAS(1)
// The portable prefill kernel on o[batch, seq_q, heads, head_dim] and lse[batch, heads, seq_q].
extern "C" cudaError_t attention_fwd_bf16_launch(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                 const __nv_bfloat16* v, __nv_bfloat16* o,
                                                 float* lse, int batch, int seq_q, int seq_k,
                                                 int heads, int kv_heads, int head_dim, int causal,
                                                 cudaStream_t stream) {
  return attention_host::launch_prefill<AttFwdConfig<128>>(q, k, v, o, lse, batch, seq_q, seq_k,
                                                           heads, kv_heads, head_dim, causal,
                                                           stream, attention_fwd_bf16);
}

// The split-KV decode kernel; its scratch as the section's comment says.
extern "C" cudaError_t attention_decode_bf16_launch(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                    const __nv_bfloat16* v, __nv_bfloat16* o,
                                                    float* lse, float* o_part, float* lse_part,
                                                    unsigned* counter, int batch, int seq_q,
                                                    int seq_k, int heads, int kv_heads,
                                                    int head_dim, int causal, cudaStream_t stream) {
  using Cfg = AttDecConfig<128>;
  if (!attention_host::shape_ok(batch, seq_q, seq_k, heads, kv_heads, head_dim))
    return cudaErrorInvalidValue;
  if (batch == 0 || seq_q == 0) return cudaSuccess;
  const long long m_blocks = (static_cast<long long>(seq_q) * (heads / kv_heads) + 15) / 16;
  const long long units = static_cast<long long>(batch) * kv_heads;
  long long by_blocks = ATT_DEC_BLOCKS / (units * m_blocks);
  const long long keys = static_cast<long long>(ATT_DEC_MIN_TILES) * Cfg::BN * Cfg::WN;
  const long long by_keys = (seq_k + keys - 1) / keys;
  long long splits = by_blocks < by_keys ? by_blocks : by_keys;
  splits = splits > 64 ? 64 : (splits < 1 ? 1 : splits);
  splits = Cfg::CLUSTER * (splits / Cfg::CLUSTER > 1 ? splits / Cfg::CLUSTER : 1);
  const long long tile = (16 + Cfg::STAGES * 2LL * Cfg::BN * Cfg::WN) * head_dim * 2;
  const long long merge = (Cfg::WN * 16LL * (head_dim + 10) + 16 + 16 * 64 +
                           (Cfg::CLUSTER > 1 ? 16LL * head_dim + 16 : 0)) *
                          4;
  const long long shared = tile > merge ? tile : merge;
  if (m_blocks > 65535 || units > 65535) return cudaErrorInvalidConfiguration;
  const cudaError_t e =
      attention_host::allow_shared(reinterpret_cast<const void*>(attention_decode_bf16), shared);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(splits), static_cast<unsigned>(units),
                        static_cast<unsigned>(m_blocks));
  config.blockDim = dim3(Cfg::kThreads);
  config.dynamicSmemBytes = static_cast<size_t>(shared);
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  if (Cfg::CLUSTER > 1) {
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = Cfg::CLUSTER;
    cluster[0].val.clusterDim.y = 1;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, attention_decode_bf16, q, k, v, o, lse, o_part, lse_part,
                            counter, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal);
}
#endif

#if ATT_HAS(2)
// The Hopper prefill kernel (sm_90a), bf16; its scratch as the section's comment says.
extern "C" cudaError_t attention_fwd_sm90_launch(const __nv_bfloat16* q, const __nv_bfloat16* k,
                                                 const __nv_bfloat16* v, __nv_bfloat16* o,
                                                 float* lse, float* o_part, unsigned* counter,
                                                 int batch, int seq_q, int seq_k, int heads,
                                                 int kv_heads, int head_dim, int causal,
                                                 cudaStream_t stream) {
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)  // (host code: the host pass)
  return attention_host::launch_sm90<Att90Config<128>>(
      q, k, v, o, lse, o_part, counter, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal,
      stream, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, attention_fwd_sm90);
#else
  return cudaErrorNotSupported;  // (the device passes parse host code too; it never runs there)
#endif
}
#endif

#if ATT_HAS(3)
// The Hopper prefill kernel (sm_90a), fp16; its scratch as the bf16 one's.
extern "C" cudaError_t attention_fwd_sm90_f16_launch(const __half* q, const __half* k,
                                                     const __half* v, __half* o, float* lse,
                                                     float* o_part, unsigned* counter, int batch,
                                                     int seq_q, int seq_k, int heads, int kv_heads,
                                                     int head_dim, int causal,
                                                     cudaStream_t stream) {
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)  // (host code: the host pass)
  return attention_host::launch_sm90<Att90HConfig<128>>(
      q, k, v, o, lse, o_part, counter, batch, seq_q, seq_k, heads, kv_heads, head_dim, causal,
      stream, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, attention_fwd_sm90_f16);
#else
  return cudaErrorNotSupported;  // (the device passes parse host code too; it never runs there)
#endif
}
#endif
#endif  // !__CUDACC_RTC__
