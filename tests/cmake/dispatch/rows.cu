#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef ROWS_BLOCK
#define ROWS_BLOCK 256
#endif
#ifndef COLS_BLOCK
#define COLS_BLOCK 64
#endif

// clang-format off
/* @kernelevo
id: rows_scale
kernel: rows_scale
params:
  ROWS_BLOCK: [64, 128, 256, 512]
problems:
  - {rows: 64, cols: 1024}
  - {rows: 64, cols: 8192}
args:
  - {name: y, type: "float*", count: "rows*cols", init: normal, inout: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch: {grid: ["rows"], block: ["ROWS_BLOCK"]}
dispatch: {by: [cols], buckets: [[0, 2048], [2048, null]], entries: [rows_scale_launch]}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(ROWS_BLOCK) rows_scale(float* y, int rows, int cols) {
  for (int c = static_cast<int>(threadIdx.x); c < cols; c += ROWS_BLOCK)
    y[static_cast<long long>(blockIdx.x) * cols + c] *= 2.0f;
  (void)rows;
}

// One variant's launcher: renamed rows_scale_launch_kev<K> in each compiled variant.
extern "C" int rows_scale_launch(float* y, int rows, int cols) {
  rows_scale<<<rows, ROWS_BLOCK>>>(y, rows, cols);
  return ROWS_BLOCK;
}

// A second macro kernel of the source, split by another dimension: each slot compiles its
// variant of both kernels.
// clang-format off
/* @kernelevo
id: cols_scale
kernel: cols_scale
params:
  COLS_BLOCK: [32, 64, 128]
problems:
  - {rows: 8, cols: 4096}
  - {rows: 512, cols: 4096}
args:
  - {name: y, type: "float*", count: "rows*cols", init: normal, inout: true}
  - {name: rows, type: int, value: rows}
  - {name: cols, type: int, value: cols}
launch: {grid: ["cols"], block: ["COLS_BLOCK"]}
dispatch: {by: [rows], buckets: per_problem, entries: [cols_scale_launch]}
*/
// clang-format on
extern "C" __global__ void __launch_bounds__(COLS_BLOCK) cols_scale(float* y, int rows, int cols) {
  for (int r = static_cast<int>(threadIdx.x); r < rows; r += COLS_BLOCK)
    y[static_cast<long long>(r) * cols + blockIdx.x] *= 2.0f;
}

extern "C" int cols_scale_launch(float* y, int rows, int cols) {
  cols_scale<<<cols, COLS_BLOCK>>>(y, rows, cols);
  return COLS_BLOCK;
}
