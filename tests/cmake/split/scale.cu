#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#include "scale_config.h"

// clang-format off
/* @kernelevo
id: scale
kernel: scale
params:
  SCALE_BLOCK: [128, 256, 512]
problems:
  - {n: 1048576}
args:
  - {name: x, type: "float*", count: "n", init: normal, inout: true}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, SCALE_BLOCK)"], block: ["SCALE_BLOCK"], shared_bytes: "0"}
reference: default
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(SCALE_BLOCK) scale(float* x, int n) {
  const int i = static_cast<int>(blockIdx.x) * SCALE_BLOCK + static_cast<int>(threadIdx.x);
  if (i < n) x[i] *= 2.0f;
}
