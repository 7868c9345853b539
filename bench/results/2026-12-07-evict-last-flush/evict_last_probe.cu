// Does a line the kernel marked L2::evict_last survive the timers' L2 flush (a write of twice
// the L2, then a read of it)? A 32 MiB buffer x is touched (read or written, with or without
// an evict_last policy), the flush runs (with or without a fix before it), then one read of x
// is timed with CUDA events; a read of a never-touched buffer after the same flush is the
// cold baseline. Build: nvcc -O2 -arch=sm_90 evict_last_probe.cu -o probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

__device__ __forceinline__ unsigned long long policy_last() {
  unsigned long long p;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// mode 0: plain read, 1: read with evict_last, 2: plain write, 3: write with evict_last
__global__ void touch(uint4* x, size_t n, int mode, unsigned* sink) {
  unsigned acc = 0;
  const unsigned long long pol = policy_last();
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    if (mode == 0) {
      uint4 v = x[i];
      acc ^= v.x ^ v.w;
    } else if (mode == 1) {
      uint4 v;
      asm volatile("ld.global.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(x + i), "l"(pol));
      acc ^= v.x ^ v.w;
    } else if (mode == 2) {
      x[i] = make_uint4(1, 2, 3, (unsigned)i);
    } else {
      asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(x + i), "r"(1u), "r"(2u),
                   "r"(3u), "r"((unsigned)i), "l"(pol) : "memory");
    }
  }
  if (acc == 0x12345678u) *sink = acc;
}

__global__ void read_sum(const uint4* x, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = x[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

// Every 128-byte line of [p, p + bytes) back to the normal eviction priority.
__global__ void demote(const char* p, size_t bytes) {
  for (size_t off = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 128; off < bytes;
       off += (size_t)gridDim.x * blockDim.x * 128)
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + off) : "memory");
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  size_t limit = 0;
  CK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("%s: L2 %d B, persistingL2CacheMaxSize %d B, persisting limit %zu B, %d SMs\n", prop.name,
              prop.l2CacheSize, prop.persistingL2CacheMaxSize, limit, prop.multiProcessorCount);
  for (const size_t xbytes : {size_t{8} << 20, size_t{32} << 20}) {
  const size_t n = xbytes / 16;
  std::printf("x: %zu MiB\n", xbytes >> 20);
  const size_t fbytes = 2 * (size_t)prop.l2CacheSize;
  uint4 *x, *fresh, *fl;
  unsigned* sink;
  CK(cudaMalloc(&x, xbytes));
  CK(cudaMalloc(&fresh, xbytes));
  CK(cudaMalloc(&fl, fbytes));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(x, 1, xbytes));
  CK(cudaMemset(fresh, 2, xbytes));
  const int grid = prop.multiProcessorCount * 8, block = 256;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  // fix 0: none; 1: cudaCtxResetPersistingL2Cache before the flush; 2: applypriority evict_normal
  // over x before the flush. flush: write twice the L2, read it back (the tuner's clean flush).
  auto flush = [&](int fix) -> cudaError_t {
    if (fix == 1) {
      cudaError_t e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaCtxResetPersistingL2Cache();
      if (e != cudaSuccess) return e;
    }
    if (fix == 2) demote<<<grid, block>>>(reinterpret_cast<const char*>(x), xbytes);
    cudaError_t e = cudaMemsetAsync(fl, 0x13, fbytes);
    if (e != cudaSuccess) return e;
    read_sum<<<grid, block>>>(fl, fbytes / 16, sink);
    return cudaGetLastError();
  };
  auto timed_read = [&](const uint4* buf, float& us) -> cudaError_t {
    cudaEventRecord(a);
    read_sum<<<grid, block>>>(buf, n, sink);
    cudaEventRecord(b);
    cudaError_t e = cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    us = ms * 1e3f;
    return e;
  };
  const char* modes[] = {"read", "read evict_last", "write", "write evict_last"};
  const char* fixes[] = {"flush", "reset API + flush", "applypriority + flush"};
  std::printf("%-18s %-22s %12s %12s\n", "x touched by", "before the timed read", "read x us", "cold us");
  for (int fix = 0; fix < 3; ++fix)
    for (int mode = 0; mode < 4; ++mode) {
      std::vector<float> t, c;
      for (int rep = 0; rep < 21; ++rep) {
        float us;
        touch<<<grid, block>>>(x, n, mode, sink);
        CK(flush(fix));
        CK(timed_read(x, us));
        t.push_back(us);
        touch<<<grid, block>>>(x, n, mode, sink);
        CK(flush(fix));
        CK(timed_read(fresh, us));
        c.push_back(us);
      }
      std::sort(t.begin(), t.end());
      std::sort(c.begin(), c.end());
      std::printf("%-18s %-22s %12.2f %12.2f\n", modes[mode], fixes[fix], t[10], c[10]);
    }
  CK(cudaFree(x));
  CK(cudaFree(fresh));
  CK(cudaFree(fl));
  CK(cudaFree(sink));
  }
  return 0;
}
