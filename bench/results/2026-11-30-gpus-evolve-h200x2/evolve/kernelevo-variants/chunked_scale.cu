// A deliberately naive kernel for the `kernelevo evolve` demonstration: each thread scales
// a contiguous chunk of 8 floats, so a warp's accesses are strided 32 bytes apart instead
// of coalesced. bench/evolve/run.sh feeds `evolve` a coalesced, float4 rewrite of it.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 256
#endif

// The reference runs with the kernel's launch geometry, so it strides over the whole range.
extern "C" __global__ void scale_reference(const float* x, float* y, float a, int n) {
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = a * x[i];
}

// clang-format off
/* @kernelevo
id: chunked_scale
kernel: chunked_scale
params:
  SCALE_BLOCK: [128, 256, 512]
problems:
  - {n: 67108864}
validate:
  - {n: 1000}
  - {n: 12347}
args:
  - {name: x, type: "const float*", count: "n", init: normal}
  - {name: y, type: "float*", count: "n", output: true}
  - {name: a, type: float, value: 1.5}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, SCALE_BLOCK * 8)"], block: ["SCALE_BLOCK"]}
reference: scale_reference
tolerance: {rtol: 1e-6, atol: 1e-6}
metrics: {bytes: "8*n"}
*/
// clang-format on
extern "C" __global__ void chunked_scale(const float* x, float* y, float a, int n) {
  const long base = static_cast<long>(blockIdx.x) * blockDim.x * 8;
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    const long i = base + (static_cast<long>(k) * blockDim.x + threadIdx.x) * 4;
    if (i + 3 < n) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(x + i));
      reinterpret_cast<float4*>(y + i)[0] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    } else {
      for (long j = i; j < n && j < i + 4; ++j) y[j] = a * x[j];
    }
  }
}

#ifndef __CUDACC_RTC__
// For programs that link this file (bench/evolve/app): launches with the block size this
// build was given (tuned, from kernelevo/params.h, or the default above).
extern "C" int chunked_scale_block() { return SCALE_BLOCK; }
extern "C" cudaError_t chunked_scale_launch(const float* x, float* y, float a, int n,
                                            cudaStream_t stream) {
  const int per_block = SCALE_BLOCK * 8;
  chunked_scale<<<(n + per_block - 1) / per_block, SCALE_BLOCK, 0, stream>>>(x, y, a, n);
  return cudaGetLastError();
}
#endif
