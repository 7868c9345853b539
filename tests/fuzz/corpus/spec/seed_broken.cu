// Two kernels in one file, with the mistakes `scan` must report all at once.
#include <cuda_runtime.h>

// clang-format off
/* @kernelevo
kernel: sum_rows
params:
  BLOCK: [128, 256]
  ITEMS: [1, 2, 4]
constraints: ["BLOCK * ITEMS <= 1024", "cols % ITEMS == 0"]
problems: [{rows: 1024, cols: 4096}, {rows: 7, cols: 999}]
args:
  - {name: x, type: "const flaot*", count: "rows * cols"}
  - {name: y, type: "float*", count: rowz, output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch: {grid: [rows], block: [BLOCK]}
*/
// clang-format on
__global__ void sum_rows(const float* x, float* y, int rows, int cols) {}

// clang-format off
/* @kernelevo
kernel: max_rows
params:
  BLOCK: [128, 256]
args:
  - {name: x, type: "const float*", count: "rows * cols"}
  - {name: y, type: "float*", count: rows, output: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
problems: [{rows: 1024, cols: 4096}]
launch: {grid: [rows], block: [BLOCK], colour: blue}
tolerance: {rtol: 1e-4, atol: 1e-5}
*/
// clang-format on
__global__ void max_rows(const float* x, float* y, int rows, int cols) {}
