// y = a * x + y, AXPY_ITEMS elements per thread, AXPY_BLOCK threads per block. Launched
// from launch.cpp, which must use the same two values: __launch_bounds__ refuses a bigger
// block, and a different AXPY_ITEMS leaves elements out or handles them twice.
#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
// The defaults, here for the tuner's baseline, and in axpy_config.h for the launcher.
#ifndef AXPY_BLOCK
#define AXPY_BLOCK 32
#endif
#ifndef AXPY_ITEMS
#define AXPY_ITEMS 1
#endif

// clang-format off
/* @kernelevo
id: axpy
kernel: axpy
params:
  AXPY_BLOCK: [32, 64, 128, 256, 512, 1024]
  AXPY_ITEMS: [1, 2, 4, 8]
problems:
  - {n: 16777216}
args:
  - {name: x, type: "const float*", count: "n", init: normal}
  - {name: y, type: "float*", count: "n", init: normal, inout: true}
  - {name: a, type: float, value: 1.5}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, AXPY_BLOCK * AXPY_ITEMS)"], block: ["AXPY_BLOCK"], shared_bytes: "0"}
metrics: {bytes: "3*n*4", flops: "2*n"}
reference: default
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(AXPY_BLOCK)
    axpy(const float* x, float* y, float a, int n) {
  const int base = static_cast<int>(blockIdx.x) * AXPY_BLOCK * AXPY_ITEMS +
                   static_cast<int>(threadIdx.x);
#pragma unroll
  for (int k = 0; k < AXPY_ITEMS; ++k) {
    const int i = base + k * AXPY_BLOCK;
    if (i < n) y[i] = a * x[i] + y[i];
  }
}
