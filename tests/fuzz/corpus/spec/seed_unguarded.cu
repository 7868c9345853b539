#include <cuda_runtime.h>
#ifndef ADD_BLOCK
#define ADD_BLOCK 128
#endif

/* @kernelevo
params: {ADD_BLOCK: [64, 128, 256]}
problems: [{n: 1000000}]
args:
  - {name: a, type: "const int32*", count: n}
  - {name: b, type: "int32*", count: n, inout: true}
  - {name: n, type: int64, value: n}
launch: {grid: "ceil_div(n, ADD_BLOCK)", block: ADD_BLOCK}
*/
__global__ void add_in_place(const int* a, int* b, long n) {
  const long i = static_cast<long>(blockIdx.x) * ADD_BLOCK + threadIdx.x;
  if (i < n) b[i] += a[i];
}
