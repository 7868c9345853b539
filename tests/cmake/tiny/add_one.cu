#include <cuda_runtime.h>
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef ADD_ONE_BLOCK
#define ADD_ONE_BLOCK 256
#endif

// clang-format off
/* @kernelevo
id: add_one
kernel: add_one
params:
  ADD_ONE_BLOCK: [64, 128, 256]
problems:
  - {n: 1048576}
args:
  - {name: x, type: "float*", count: "n", init: normal, inout: true}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, ADD_ONE_BLOCK)"], block: ["ADD_ONE_BLOCK"], shared_bytes: "0"}
reference: default
*/
// clang-format on
extern "C" __global__ void add_one(float* x, int n) {
  const int i = static_cast<int>(blockIdx.x) * ADD_ONE_BLOCK + static_cast<int>(threadIdx.x);
  if (i < n) x[i] += 1.0f;
}

void add_one_launch(float* x, int n) { add_one<<<(n + ADD_ONE_BLOCK - 1) / ADD_ONE_BLOCK, ADD_ONE_BLOCK>>>(x, n); }
