// Row-wise softmax: one block per row, a block-wide max and sum reduction.
#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SOFTMAX_BLOCK
#define SOFTMAX_BLOCK 256
#endif
#ifndef SOFTMAX_VEC
#define SOFTMAX_VEC 1
#endif

// clang-format off
/* @kernelevo
id: softmax_rows
kernel: softmax_rows
params:
  SOFTMAX_BLOCK: [128, 256, 512, 1024]
  SOFTMAX_VEC: [1, 2, 4]
constraints: ["SOFTMAX_BLOCK * SOFTMAX_VEC <= 2048", "cols % SOFTMAX_VEC == 0"]
problems:
  - {rows: 4096, cols: 8192}
  - {rows: 32768, cols: 1022}
validate:
  - {rows: 3, cols: 1000}
args:
  - {name: x, type: "const float*", count: "rows*cols", init: {uniform: [-4, 4]}}
  - {name: y, type: "float*", count: "rows*cols", output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch: {grid: ["rows"], block: ["SOFTMAX_BLOCK"], shared_bytes: "2 * 32 * 4"}
reference: softmax_rows_naive
tolerance: {rtol: 1e-5, atol: 1e-6}
objectives: {minimize: [registers, local_bytes], within: 0.02}
metrics: {bytes: "2*rows*cols*4", flops: "5*rows*cols"}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(SOFTMAX_BLOCK)
softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float partial[32];
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x * SOFTMAX_VEC; c < cols; c += SOFTMAX_BLOCK * SOFTMAX_VEC)
    for (int v = 0; v < SOFTMAX_VEC; ++v) m = fmaxf(m, in[c + v]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = m;
  __syncthreads();
  m = partial[0];
  for (int w = 1; w < SOFTMAX_BLOCK / 32; ++w) m = fmaxf(m, partial[w]);
  __syncthreads();
  float s = 0.f;
  for (int c = threadIdx.x * SOFTMAX_VEC; c < cols; c += SOFTMAX_BLOCK * SOFTMAX_VEC)
    for (int v = 0; v < SOFTMAX_VEC; ++v) s += __expf(in[c + v] - m);
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0.f;
  for (int w = 0; w < SOFTMAX_BLOCK / 32; ++w) s += partial[w];
  for (int c = threadIdx.x * SOFTMAX_VEC; c < cols; c += SOFTMAX_BLOCK * SOFTMAX_VEC)
    for (int v = 0; v < SOFTMAX_VEC; ++v) out[c + v] = __expf(in[c + v] - m) / s;
}

// The reference: one thread per row, obviously correct.
extern "C" __global__ void softmax_rows_naive(const float* x, float* y, int rows, int cols) {
  if (threadIdx.x != 0) return;
  const float* in = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, in[c]);
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += expf(in[c] - m);
  for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) / s;
}
