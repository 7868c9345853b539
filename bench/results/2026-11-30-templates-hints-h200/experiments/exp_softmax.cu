// Experimental row softmax (fits-in-registers path only): EX_NR rows per group at once, load/store hints.
#include <cuda_runtime.h>
#include <math_constants.h>
#ifndef EX_V
#define EX_V 4
#endif
#ifndef EX_U
#define EX_U 8
#endif
#ifndef EX_BLOCK
#define EX_BLOCK 128
#endif
#ifndef EX_MAXRT
#define EX_MAXRT 1024
#endif
#ifndef EX_NR
#define EX_NR 1
#endif
#ifndef EX_LDH
#define EX_LDH 0
#endif
#ifndef EX_STH
#define EX_STH 0
#endif
template <int N> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };
using T = Vec<EX_V>::type;
__device__ __forceinline__ float& at(T& v, int i) { return reinterpret_cast<float*>(&v)[i]; }
__device__ __forceinline__ T ldx(const T* p) {
#if EX_LDH == 0
  return __ldcs(p);
#elif EX_LDH == 1
  return __ldg(p);
#elif EX_LDH == 2
  return *p;
#elif EX_LDH == 3
  return __ldcg(p);
#else
  return __ldlu(p);
#endif
}
__device__ __forceinline__ void sty(T* p, const T& v) {
#if EX_STH == 0
  __stcs(p, v);
#elif EX_STH == 1
  *p = v;
#else
  __stcg(p, v);
#endif
}
constexpr int kMaxBlock = EX_BLOCK > EX_MAXRT ? EX_BLOCK : EX_MAXRT;
constexpr float kLog2e = 1.4426950408889634f;
extern "C" __global__ void __launch_bounds__(kMaxBlock) softmax_x(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  constexpr int per_warp = 32 * EX_V * EX_U;
  const int w0 = cols > per_warp ? (cols + per_warp - 1) / per_warp : 1;
  const int RT = min(EX_MAXRT, 32 * w0);
  const int warps = RT / 32;
  const int group = threadIdx.x / RT, lane = threadIdx.x % RT;
  const int gpb = blockDim.x / RT;
  const int fw = group * warps;
  const long long first = ((long long)blockIdx.x * gpb + group) * EX_NR;
  __shared__ float smax[EX_NR][2 * kMaxBlock / 32];
  __shared__ float ssum[EX_NR][2 * kMaxBlock / 32];
  const int nvec = cols / EX_V;
  T r[EX_NR][EX_U];
  float m[EX_NR];
#pragma unroll
  for (int n = 0; n < EX_NR; ++n) {
    const long long row = first + n;
    const bool act = row < rows && group < gpb;
    const T* xv = reinterpret_cast<const T*>(x + (act ? row : 0) * (long long)cols);
    m[n] = -CUDART_INF_F;
#pragma unroll
    for (int u = 0; u < EX_U; ++u) {
      const int i = lane + u * RT;
      if (act && i < nvec) {
        r[n][u] = ldx(xv + i);
#pragma unroll
        for (int k = 0; k < EX_V; ++k) m[n] = fmaxf(m[n], at(r[n][u], k));
      }
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
#pragma unroll
    for (int n = 0; n < EX_NR; ++n) m[n] = fmaxf(m[n], __shfl_xor_sync(0xffffffffu, m[n], o));
  if (warps > 1) {
    if (threadIdx.x % 32 == 0)
      for (int n = 0; n < EX_NR; ++n) smax[n][threadIdx.x / 32] = m[n];
    __syncthreads();
#pragma unroll
    for (int n = 0; n < EX_NR; ++n) {
      float v = smax[n][fw];
      for (int w = 1; w < warps; ++w) v = fmaxf(v, smax[n][fw + w]);
      m[n] = v;
    }
  }
  float s[EX_NR];
#pragma unroll
  for (int n = 0; n < EX_NR; ++n) {
    const long long row = first + n;
    const bool act = row < rows && group < gpb;
    m[n] *= kLog2e;
    s[n] = 0.f;
#pragma unroll
    for (int u = 0; u < EX_U; ++u) {
      const int i = lane + u * RT;
      if (act && i < nvec) {
#pragma unroll
        for (int k = 0; k < EX_V; ++k) {
          const float e = exp2f(fmaf(at(r[n][u], k), kLog2e, -m[n]));
          at(r[n][u], k) = e;
          s[n] += e;
        }
      }
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
#pragma unroll
    for (int n = 0; n < EX_NR; ++n) s[n] += __shfl_xor_sync(0xffffffffu, s[n], o);
  if (warps > 1) {
    if (threadIdx.x % 32 == 0)
      for (int n = 0; n < EX_NR; ++n) ssum[n][threadIdx.x / 32] = s[n];
    __syncthreads();
#pragma unroll
    for (int n = 0; n < EX_NR; ++n) {
      float v = ssum[n][fw];
      for (int w = 1; w < warps; ++w) v += ssum[n][fw + w];
      s[n] = v;
    }
  }
#pragma unroll
  for (int n = 0; n < EX_NR; ++n) {
    const long long row = first + n;
    const bool act = row < rows && group < gpb;
    const float inv = 1.f / s[n];
    T* yv = reinterpret_cast<T*>(y + (act ? row : 0) * (long long)cols);
#pragma unroll
    for (int u = 0; u < EX_U; ++u) {
      const int i = lane + u * RT;
      if (act && i < nvec) {
#pragma unroll
        for (int k = 0; k < EX_V; ++k) at(r[n][u], k) *= inv;
        sty(yv + i, r[n][u]);
      }
    }
  }
}
