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
//   shape, so one configuration serves a batch of 1 and of 32.
// ATT_GROUP_ROWS 1 (always for decode) makes a block's rows the query heads of one key/value
// head, position by position (rows of consecutive heads are contiguous in q), so every K and V
// tile read serves all heads of the group; 0 gives each query head its own blocks.
// Causal blocks run in reverse order so the longest start first.
#include <cuda_bf16.h>
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
#define ATT_DEC_WARPS_N 4
#endif
#ifndef ATT_DEC_BN
#define ATT_DEC_BN 32
#endif
#ifndef ATT_DEC_STAGES
#define ATT_DEC_STAGES 2
#endif
#ifndef ATT_DEC_BLOCKS
#define ATT_DEC_BLOCKS 264
#endif
#ifndef ATT_DEC_MIN_TILES
#define ATT_DEC_MIN_TILES 1
#endif

static_assert(
    ATT_DEC_BLOCKS >= 1 && ATT_DEC_MIN_TILES >= 1,
    "ATT_DEC_BLOCKS and ATT_DEC_MIN_TILES (the decode launch's split count) are positive");

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
// Byte offset of 16-byte chunk `chunk` of row `row` in a tile of rows of D bf16 values: the
// chunk index XOR the row's low three bits, so the eight rows an ldmatrix reads at one chunk
// column fall in different banks.
template <int D>
__device__ __forceinline__ unsigned tile_offset(int row, int chunk) {
  return static_cast<unsigned>(row * (D * 2) + ((chunk ^ (row & 7)) << 4));
}

template <int D_, int WM_, int WN_, int MT_, int BN_, int STAGES_, bool GROUP_ROWS_, bool SPLIT_>
struct Config {
  static constexpr int D = D_, WM = WM_, WN = WN_, MT = MT_, BN = BN_, STAGES = STAGES_;
  static constexpr bool GROUP_ROWS = GROUP_ROWS_, SPLIT = SPLIT_;
  static constexpr int BM = 16 * MT * WM;  // query rows of a block
  static constexpr int KN = BN * WN;       // keys of a block's tile
  static constexpr int kThreads = 32 * WM * WN;
  static constexpr int kChunks = D / 8;  // 16-byte chunks of a row
  static constexpr int kQBytes = BM * D * 2;
  static constexpr int kTileBytes = KN * D * 2;  // K or V of one stage
  static_assert(D == 64 || D == 128, "head_dim 64 or 128");
  static_assert(BN % 16 == 0 && BN >= 16, "ATT_BN: a multiple of 16");
  static_assert(STAGES >= 1, "at least one stage");
  static_assert(kThreads <= 1024, "at most 1024 threads");
};

// Where a block's row r (of its unit's rows) lives.
struct RowMap {
  int b, kvh, head0, group;
  bool group_rows;
  __device__ int pos(int r) const { return group_rows ? r / group : r; }
  __device__ int head(int r) const { return group_rows ? head0 + r % group : head0; }
};

template <class C>
__device__ __forceinline__ void load_kv_tile(unsigned k_dst, unsigned v_dst, const __nv_bfloat16* k,
                                             const __nv_bfloat16* v, const Geometry& g,
                                             const RowMap& map, int n0) {
  for (int i = threadIdx.x; i < C::KN * C::kChunks; i += C::kThreads) {
    const int r = i / C::kChunks;
    const int c = i % C::kChunks;
    const int key = n0 + r;
    const bool valid = key < g.seq_k;
    const long long off =
        (static_cast<long long>(map.b * g.seq_k + (valid ? key : 0)) * g.kv_heads + map.kvh) *
            C::D +
        c * 8;
    const unsigned dst = tile_offset<C::D>(r, c);
    cp_async_16(k_dst + dst, k + off, valid);
    cp_async_16(v_dst + dst, v + off, valid);
  }
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
  const int m_block = g.causal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : blockIdx.x;
  const int row0 = m_block * BM;
  const int last_row = min(row0 + BM, rows) - 1;
  const int shift = g.seq_k - g.seq_q;  // key j is visible to position i when j <= i + shift
  int n_end = g.seq_k;
  if (g.causal) n_end = min(n_end, map.pos(last_row) + 1 + shift);
  const int n_tiles = n_end > 0 ? (n_end + KN - 1) / KN : 0;
  int t_begin = 0, t_end = n_tiles;
  if (C::SPLIT && gridDim.z > 1) {
    const int per = (n_tiles + gridDim.z - 1) / gridDim.z;
    t_begin = min(n_tiles, static_cast<int>(blockIdx.z) * per);
    t_end = min(n_tiles, t_begin + per);
  }
  const int first_pos = map.pos(row0);

  const unsigned q_s = shared_address(attention_smem);
  const unsigned kv_s = q_s + C::kQBytes;
  auto k_stage = [&](int s) { return kv_s + static_cast<unsigned>(s * 2 * C::kTileBytes); };
  auto v_stage = [&](int s) { return k_stage(s) + static_cast<unsigned>(C::kTileBytes); };

  // Q tile (rows past the end zero-filled), joined to the first tile's copy group.
  for (int i = threadIdx.x; i < BM * C::kChunks; i += C::kThreads) {
    const int r = i / C::kChunks;
    const int c = i % C::kChunks;
    const int row = row0 + r;
    const bool valid = row < rows;
    const int rr = valid ? row : 0;
    const long long off =
        (static_cast<long long>(map.b * g.seq_q + map.pos(rr)) * g.heads + map.head(rr)) * D +
        c * 8;
    cp_async_16(q_s + tile_offset<D>(r, c), q + off, valid);
  }

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

  if constexpr (STAGES > 1) {
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
    if constexpr (STAGES == 1) {
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
  }
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

  // A decode launch of one split (gridDim.z == 1) writes its rows directly, as prefill does.
  const bool split = C::SPLIT && gridDim.z > 1;
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
    // the block's rows merged over the warps along the keys: w_o[WN][BM][D], w_m, w_l [WN][BM],
    // and a per-row factor and log-sum-exp (log2) of the merged row.
    __syncthreads();
    float* w_o = reinterpret_cast<float*>(attention_smem);
    float* w_m = w_o + C::WN * BM * D;
    float* w_l = w_m + C::WN * BM;
    float* row_lse2 = w_l + C::WN * BM;
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wm * 16 * MT + mt * 16 + lane / 4 + 8 * h;
        float* dst = w_o + (wn * BM + r) * D + 2 * (lane % 4);
#pragma unroll
        for (int dn = 0; dn < D / 8; ++dn) {
          dst[dn * 8] = acc[mt][dn][2 * h];
          dst[dn * 8 + 1] = acc[mt][dn][2 * h + 1];
        }
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

    if (!split) {
      for (int i = threadIdx.x; i < BM * D; i += C::kThreads) {
        const int r = i / D, d = i % D;
        const int row = row0 + r;
        if (row >= rows) continue;
        float x = 0.f;
        for (int w = 0; w < C::WN; ++w) x += w_o[(w * BM + r) * D + d] * w_m[w * BM + r];
        o[o_offset(row) + d] = __float2bfloat16_rn(x);
        if (d == 0) lse[lse_offset(row)] = row_lse2[r] * kLn2;
      }
    } else {
      // This split's normalised rows to scratch: o_part[z][row][d], lse_part[z][row] over the
      // rows of every unit (batch * heads * seq_q in all).
      const long long unit_rows = static_cast<long long>(unit) * rows;
      const long long total_rows = static_cast<long long>(g.batch) * g.heads * g.seq_q;
      const int splits = gridDim.z;
      for (int i = threadIdx.x; i < BM * D; i += C::kThreads) {
        const int r = i / D, d = i % D;
        const int row = row0 + r;
        if (row >= rows) continue;
        float x = 0.f;
        for (int w = 0; w < C::WN; ++w) x += w_o[(w * BM + r) * D + d] * w_m[w * BM + r];
        const long long pr = blockIdx.z * total_rows + unit_rows + row;
        o_part[pr * D + d] = x;
        if (d == 0) lse_part[pr] = row_lse2[r];
      }
      __threadfence();
      __syncthreads();
      __shared__ unsigned is_last;
      if (threadIdx.x == 0) {
        unsigned* ticket = counter + static_cast<long long>(unit) * gridDim.x + m_block;
        const unsigned before = atomicAdd(ticket, 1u);
        is_last = before == static_cast<unsigned>(splits - 1);
        if (is_last) *ticket = 0u;  // left zero for the next launch
      }
      __syncthreads();
      if (!is_last) return;
      __threadfence();
      // The last block merges every split's rows: the splits' log-sum-exps into shared memory
      // (one load each, all in flight), factors per split and row from them, then each thread
      // four output columns of a row, loads of every split in flight.
      float* f = w_o;  // [splits][BM]; the shared state above is no longer needed
      for (int i = threadIdx.x; i < splits * BM; i += C::kThreads) {
        const int z = i / BM, r = i % BM;
        const int row = row0 + r;
        f[i] = row < rows ? __ldcg(lse_part + z * total_rows + unit_rows + row) : ATT_NEG_INF;
      }
      __syncthreads();
      for (int r = threadIdx.x; r < BM; r += C::kThreads) {
        const int row = row0 + r;
        float m = ATT_NEG_INF;
        for (int z = 0; z < splits; ++z) m = fmaxf(m, f[z * BM + r]);
        const float m_use = m == ATT_NEG_INF ? 0.f : m;
        float l = 0.f;
        for (int z = 0; z < splits; ++z) {
          const float x = exp2f(f[z * BM + r] - m_use);
          f[z * BM + r] = x;
          l += x;
        }
        const float inv = l > 0.f ? 1.f / l : 0.f;
        for (int z = 0; z < splits; ++z) f[z * BM + r] *= inv;
        if (row < rows) lse[lse_offset(row)] = l > 0.f ? (m_use + log2f(l)) * kLn2 : ATT_NEG_INF;
      }
      __syncthreads();
      for (int i = threadIdx.x; i < BM * (D / 4); i += C::kThreads) {
        const int r = i / (D / 4), c = i % (D / 4);
        const int row = row0 + r;
        if (row >= rows) continue;
        float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
        for (int z = 0; z < splits; ++z) {
          const float4 p = __ldcg(
              reinterpret_cast<const float4*>(o_part + (z * total_rows + unit_rows + row) * D) + c);
          const float w = f[z * BM + r];
          x.x += p.x * w;
          x.y += p.y * w;
          x.z += p.z * w;
          x.w += p.w * w;
        }
        *reinterpret_cast<uint2*>(o + o_offset(row) + 4 * c) =
            make_uint2(pack_bf16(x.x, x.y), pack_bf16(x.z, x.w));
      }
    }
  }
}

// The reference: one warp per query row, in fp32, two passes over the keys (the maximum,
// then the exponentials and the weighted sum); lane l holds elements l, l + 32, ... of the
// query row and of the output, so any head_dim up to 256 works.
__device__ void attention_naive(const __nv_bfloat16* __restrict__ q,
                                const __nv_bfloat16* __restrict__ k,
                                const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
                                float* __restrict__ lse, int batch, int seq_q, int seq_k, int heads,
                                int kv_heads, int head_dim, int causal) {
  constexpr int kMaxSlice = 256 / 32;
  const int lane = threadIdx.x % 32;
  const long long warps =
      static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z * (blockDim.x / 32);
  const long long block =
      (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const long long total = static_cast<long long>(batch) * seq_q * heads;
  const int group = heads / kv_heads;
  const float scale = rsqrtf(static_cast<float>(head_dim));
  for (long long w = block * (blockDim.x / 32) + threadIdx.x / 32; w < total; w += warps) {
    const int h = static_cast<int>(w % heads);
    const int i = static_cast<int>((w / heads) % seq_q);
    const int b = static_cast<int>(w / (static_cast<long long>(heads) * seq_q));
    const int kvh = h / group;
    float qv[kMaxSlice], ov[kMaxSlice];
#pragma unroll
    for (int x = 0; x < kMaxSlice; ++x) {
      const int d = lane + 32 * x;
      qv[x] = d < head_dim ? __bfloat162float(q[w * head_dim + d]) : 0.f;
      ov[x] = 0.f;
    }
    const int limit = causal ? min(seq_k, i + seq_k - seq_q + 1) : seq_k;
    auto row = [&](const __nv_bfloat16* t, int j) {
      return t + (static_cast<long long>(b) * seq_k + j) * kv_heads * head_dim +
             static_cast<long long>(kvh) * head_dim;
    };
    auto score = [&](int j) {
      const __nv_bfloat16* kr = row(k, j);
      float s = 0.f;
#pragma unroll
      for (int x = 0; x < kMaxSlice; ++x) {
        const int d = lane + 32 * x;
        if (d < head_dim) s += qv[x] * __bfloat162float(kr[d]);
      }
      for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
      return s * scale;
    };
    float m = ATT_NEG_INF;
    for (int j = 0; j < limit; ++j) m = fmaxf(m, score(j));
    float l = 0.f;
    for (int j = 0; j < limit; ++j) {
      const float p = expf(score(j) - m);
      l += p;
      const __nv_bfloat16* vr = row(v, j);
#pragma unroll
      for (int x = 0; x < kMaxSlice; ++x) {
        const int d = lane + 32 * x;
        if (d < head_dim) ov[x] += p * __bfloat162float(vr[d]);
      }
    }
#pragma unroll
    for (int x = 0; x < kMaxSlice; ++x) {
      const int d = lane + 32 * x;
      if (d < head_dim) o[w * head_dim + d] = __float2bfloat16_rn(l > 0.f ? ov[x] / l : 0.f);
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
using AttDecConfig =
    attention_detail::Config<D, 1, ATT_DEC_WARPS_N, 1, ATT_DEC_BN, ATT_DEC_STAGES, true, true>;

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
  MERGE_BYTES: "(ATT_WARPS_N > 1) * (ATT_WARPS_N * BM * (head_dim + 2) + BM) * 4"
constraints:
  - "ATT_M_TILES * (ATT_BN / 2 + 64) <= 192"
  - "32 * ATT_WARPS_M * ATT_WARPS_N <= 512"
  - "(BM + ATT_STAGES * 2 * ATT_BN * ATT_WARPS_N) * 256 <= 227 * 1024"
  - "(ATT_WARPS_N > 1) * ATT_WARPS_N * BM * 130 * 4 <= 227 * 1024"
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
let:
  GROUP: "heads / kv_heads"
  M_BLOCKS: "ceil_div(seq_q * GROUP, 16)"
  SPLITS: "max(1, min(64, min(ATT_DEC_BLOCKS / (batch * kv_heads * M_BLOCKS), ceil_div(seq_k, ATT_DEC_MIN_TILES * ATT_DEC_BN * ATT_DEC_WARPS_N))))"
  TILE_BYTES: "(16 + ATT_DEC_STAGES * 2 * ATT_DEC_BN * ATT_DEC_WARPS_N) * head_dim * 2"
  MERGE_BYTES: "(ATT_DEC_WARPS_N * 16 * (head_dim + 2) + 16 + 16 * 64) * 4"
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
  grid: ["M_BLOCKS", "batch * kv_heads", "SPLITS"]
  block: ["32 * ATT_DEC_WARPS_N"]
  shared_bytes: "max(TILE_BYTES, MERGE_BYTES)"
reference: attention_decode_bf16_naive
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
