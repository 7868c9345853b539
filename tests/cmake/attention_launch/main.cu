// Calls each of attention_fwd.cu's launchers (the portable prefill and decode kernels, the
// Hopper prefill kernel in bf16 and fp16) on small grouped-query shapes, causal and not, and
// checks the output and log-sum-exp against attention computed here in double. Prints a line a
// call; exits 0 when all agree, 1 when one does not, and 2 (saying so) with no sm_90 GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

extern "C" cudaError_t attention_fwd_bf16_launch(const __nv_bfloat16*, const __nv_bfloat16*,
                                                 const __nv_bfloat16*, __nv_bfloat16*, float*, int,
                                                 int, int, int, int, int, int, cudaStream_t);
extern "C" cudaError_t attention_decode_bf16_launch(const __nv_bfloat16*, const __nv_bfloat16*,
                                                    const __nv_bfloat16*, __nv_bfloat16*, float*,
                                                    float*, float*, unsigned*, int, int, int, int,
                                                    int, int, int, cudaStream_t);
extern "C" cudaError_t attention_fwd_sm90_launch(const __nv_bfloat16*, const __nv_bfloat16*,
                                                 const __nv_bfloat16*, __nv_bfloat16*, float*,
                                                 float*, unsigned*, int, int, int, int, int, int,
                                                 int, cudaStream_t);
extern "C" cudaError_t attention_fwd_sm90_f16_launch(const __half*, const __half*, const __half*,
                                                     __half*, float*, float*, unsigned*, int, int,
                                                     int, int, int, int, int, cudaStream_t);

namespace {

struct Shape {
  int batch, seq_q, seq_k, heads, kv_heads, head_dim, causal;
};

float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
float to_float(__half x) { return __half2float(x); }
template <class T>
T from_float(float x);
template <>
__nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__half from_float<__half>(float x) {
  return __float2half(x);
}

// o and lse in double, the kernels' semantics (templates/attention_fwd.cu's header).
template <class T>
void reference(const Shape& s, const std::vector<T>& q, const std::vector<T>& k,
               const std::vector<T>& v, std::vector<double>& o, std::vector<double>& lse) {
  const int d = s.head_dim, group = s.heads / s.kv_heads;
  o.assign(static_cast<std::size_t>(s.batch) * s.seq_q * s.heads * d, 0.0);
  lse.assign(static_cast<std::size_t>(s.batch) * s.heads * s.seq_q, -INFINITY);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      for (int i = 0; i < s.seq_q; ++i) {
        const int limit = s.causal ? std::min(s.seq_k, i + s.seq_k - s.seq_q + 1) : s.seq_k;
        std::vector<double> score(limit > 0 ? limit : 0);
        double m = -INFINITY;
        for (int j = 0; j < limit; ++j) {
          double x = 0;
          for (int c = 0; c < d; ++c)
            x += static_cast<double>(to_float(
                     q[((static_cast<std::size_t>(b) * s.seq_q + i) * s.heads + h) * d + c])) *
                 to_float(
                     k[((static_cast<std::size_t>(b) * s.seq_k + j) * s.kv_heads + h / group) * d +
                       c]);
          score[j] = x / std::sqrt(static_cast<double>(d));
          m = std::fmax(m, score[j]);
        }
        double l = 0;
        for (int j = 0; j < limit; ++j) l += std::exp(score[j] - m);
        for (int j = 0; j < limit; ++j)
          for (int c = 0; c < d; ++c)
            o[((static_cast<std::size_t>(b) * s.seq_q + i) * s.heads + h) * d + c] +=
                std::exp(score[j] - m) / l *
                to_float(
                    v[((static_cast<std::size_t>(b) * s.seq_k + j) * s.kv_heads + h / group) * d +
                      c]);
        if (limit > 0)
          lse[(static_cast<std::size_t>(b) * s.heads + h) * s.seq_q + i] = m + std::log(l);
      }
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* p = nullptr;
  cudaMalloc(&p, host.size() * sizeof(T) + 16);
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

template <class T, class Launch>
bool run(const char* name, const Shape& s, Launch launch) {
  std::mt19937 rng(s.seq_q * 131 + s.seq_k * 7 + s.head_dim + s.causal);
  std::normal_distribution<float> normal;
  const std::size_t nq = static_cast<std::size_t>(s.batch) * s.seq_q * s.heads * s.head_dim;
  const std::size_t nk = static_cast<std::size_t>(s.batch) * s.seq_k * s.kv_heads * s.head_dim;
  const std::size_t nl = static_cast<std::size_t>(s.batch) * s.heads * s.seq_q;
  std::vector<T> q(nq), k(nk), v(nk);
  for (auto* t : {&q, &k, &v})
    for (auto& x : *t) x = from_float<T>(normal(rng));
  std::vector<double> want_o, want_lse;
  reference(s, q, k, v, want_o, want_lse);
  T* dq = device_copy(q);
  T* dk = device_copy(k);
  T* dv = device_copy(v);
  T* dout = device_copy(std::vector<T>(nq, from_float<T>(NAN)));
  float* dlse = device_copy(std::vector<float>(nl, NAN));
  const cudaError_t e = launch(dq, dk, dv, dout, dlse);
  const cudaError_t sync = cudaDeviceSynchronize();
  std::vector<T> o(nq);
  std::vector<float> lse(nl);
  cudaMemcpy(o.data(), dout, nq * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(lse.data(), dlse, nl * sizeof(float), cudaMemcpyDeviceToHost);
  for (void* p : {static_cast<void*>(dq), static_cast<void*>(dk), static_cast<void*>(dv),
                  static_cast<void*>(dout), static_cast<void*>(dlse)})
    cudaFree(p);
  std::printf("%s batch %d, %d queries x %d keys, %d/%d heads, head_dim %d, causal %d: ", name,
              s.batch, s.seq_q, s.seq_k, s.heads, s.kv_heads, s.head_dim, s.causal);
  if (e != cudaSuccess || sync != cudaSuccess) {
    std::printf("launch failed: %s\n", cudaGetErrorString(e != cudaSuccess ? e : sync));
    return false;
  }
  double err_o = 0, err_l = 0;
  bool finite = true;
  for (std::size_t i = 0; i < nq; ++i) {
    const double x = to_float(o[i]);
    finite = finite && std::isfinite(x);
    err_o = std::fmax(err_o, std::fabs(x - want_o[i]));
  }
  for (std::size_t i = 0; i < nl; ++i) {
    if (std::isinf(want_lse[i])) {
      finite = finite && std::isinf(lse[i]) && lse[i] < 0;
      continue;
    }
    err_l = std::fmax(err_l, std::fabs(lse[i] - want_lse[i]));
  }
  const bool ok = finite && err_o <= 2e-2 && err_l <= 1e-3;
  std::printf("%s (largest error: output %.2e, log-sum-exp %.2e)\n", ok ? "agrees" : "DIFFERS",
              err_o, err_l);
  return ok;
}

}  // namespace

int main() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess || prop.major != 9 || prop.minor != 0) {
    std::printf("no sm_90 GPU: nothing run\n");
    return 2;
  }
  const Shape prefill[] = {{2, 130, 130, 8, 2, 128, 1},
                           {1, 77, 200, 4, 1, 64, 0},
                           {1, 300, 100, 4, 2, 128, 1},
                           {2, 33, 150, 6, 2, 128, 1},
                           // The spec's validate shapes: odd lengths, head_dim 64, one query.
                           {1, 77, 77, 4, 1, 64, 1},
                           {2, 200, 200, 8, 8, 64, 0},
                           {1, 130, 61, 2, 2, 128, 0},
                           {3, 1, 1000, 8, 1, 128, 0},
                           // Causal with more keys than queries and fewer (rows with every
                           // key masked), a head_dim of 64 at 1000 keys, and empty sequences.
                           {1, 600, 1000, 2, 2, 128, 1},
                           {1, 1000, 600, 2, 2, 128, 1},
                           {1, 1000, 1000, 2, 1, 64, 1},
                           {1, 0, 5, 2, 2, 64, 0},
                           {1, 64, 0, 2, 2, 128, 0},
                           // More query tiles (144 of 128 rows) than persistent blocks
                           // (ATT90_CTAS=132): some blocks take two, of unequal length.
                           {3, 333, 333, 16, 2, 128, 1},
                           // With ATT90_STREAM: one query tile's 32 key tiles on 32 blocks (a
                           // merge of 32 parts), and causal tiles cut at uneven points.
                           {1, 128, 4096, 1, 1, 128, 0},
                           {2, 256, 3000, 4, 2, 64, 1}};
  // The Hopper launchers' Stream-K scratch, as the template's launchers' comment sizes it.
  float* sm90_part = nullptr;
  unsigned* sm90_counter = nullptr;
  cudaMalloc(&sm90_part, 2 * 132 * 3 * (128 / 8 + 1) * 512 * sizeof(float));
  cudaMalloc(&sm90_counter, 396 * sizeof(unsigned));
  cudaMemset(sm90_counter, 0, 396 * sizeof(unsigned));
  bool ok = true;
  for (const Shape& s : prefill) {
    const auto args = [&](auto fn) {
      return [&, fn](auto* q, auto* k, auto* v, auto* o, float* lse) {
        return fn(q, k, v, o, lse, s.batch, s.seq_q, s.seq_k, s.heads, s.kv_heads, s.head_dim,
                  s.causal, nullptr);
      };
    };
    const auto sm90_args = [&](auto fn) {
      return [&, fn](auto* q, auto* k, auto* v, auto* o, float* lse) {
        return fn(q, k, v, o, lse, sm90_part, sm90_counter, s.batch, s.seq_q, s.seq_k, s.heads,
                  s.kv_heads, s.head_dim, s.causal, nullptr);
      };
    };
    ok = run<__nv_bfloat16>("attention_fwd_bf16", s, args(attention_fwd_bf16_launch)) && ok;
    ok = run<__nv_bfloat16>("attention_fwd_sm90", s, sm90_args(attention_fwd_sm90_launch)) && ok;
    ok = run<__half>("attention_fwd_sm90_f16", s, sm90_args(attention_fwd_sm90_f16_launch)) && ok;
  }
  // Without scratch the Hopper kernels take whole tiles, whatever their build.
  const Shape whole = {3, 333, 333, 16, 2, 128, 1};
  ok = run<__nv_bfloat16>("attention_fwd_sm90 (no scratch)", whole,
                          [&](auto* q, auto* k, auto* v, auto* o, float* lse) {
                            return attention_fwd_sm90_launch(q, k, v, o, lse, nullptr, nullptr,
                                                             whole.batch, whole.seq_q, whole.seq_k,
                                                             whole.heads, whole.kv_heads,
                                                             whole.head_dim, whole.causal, nullptr);
                          }) &&
       ok;
  cudaFree(sm90_part);
  cudaFree(sm90_counter);
  // Decode: a query token, three causal ones over two query blocks at head_dim 64, no keys,
  // and a batch of 2 against 5000 keys (splits of unequal length at most schedules).
  const Shape decodes[] = {{3, 1, 1000, 8, 1, 128, 0},
                           {2, 3, 777, 16, 2, 64, 1},
                           {1, 1, 0, 8, 2, 128, 0},
                           {2, 1, 5000, 32, 4, 128, 0}};
  std::size_t most_rows = 0;
  for (const Shape& s : decodes)
    most_rows = std::max(most_rows, static_cast<std::size_t>(s.batch) * s.seq_q * s.heads);
  float* o_part = nullptr;
  float* lse_part = nullptr;
  unsigned* counter = nullptr;
  cudaMalloc(&o_part, 64 * most_rows * 128 * sizeof(float));
  cudaMalloc(&lse_part, 64 * most_rows * sizeof(float));
  cudaMalloc(&counter, most_rows * sizeof(unsigned));
  cudaMemset(counter, 0, most_rows * sizeof(unsigned));
  for (const Shape& s : decodes)
    ok = run<__nv_bfloat16>("attention_decode_bf16", s,
                            [&](auto* q, auto* k, auto* v, auto* o, float* lse) {
                              return attention_decode_bf16_launch(
                                  q, k, v, o, lse, o_part, lse_part, counter, s.batch, s.seq_q,
                                  s.seq_k, s.heads, s.kv_heads, s.head_dim, s.causal, nullptr);
                            }) &&
         ok;
  cudaFree(o_part);
  cudaFree(lse_part);
  cudaFree(counter);
  return ok ? 0 : 1;
}
