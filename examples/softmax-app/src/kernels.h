#pragma once
// The library's interface: launchers for the two tuned kernels.
#include <cuda_runtime.h>

// The launch configuration a launcher used (the tuned values of the loaded device code).
struct LaunchConfig {
  int block;
  int row_threads;
  int vec;
  int unroll;
  int grid;
};

extern "C" LaunchConfig softmax_rows_launch(const float* x, float* y, int rows, int cols,
                                            cudaStream_t stream);
extern "C" LaunchConfig rmsnorm_rows_launch(const float* x, const float* gamma, float* y, int rows,
                                            int cols, float eps, cudaStream_t stream);
