// The host launcher, in a file of its own: its grid and block come from axpy_config.h, so
// they are the kernel's only because kernelevo_optimize gives every source of the target
// the tuned values.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "axpy.h"
#include "axpy_config.h"

// The kernel's host stub, defined by axpy.cu; cudaLaunchKernel takes its address.
extern "C" void axpy(const float* x, float* y, float a, int n);

namespace {

AxpyRun failed(AxpyRun run, cudaError_t e) {
  run.error = cudaGetErrorString(e);
  return run;
}

}  // namespace

AxpyRun run_axpy(int n, int launches) {
  AxpyRun run;
  run.block = AXPY_BLOCK;
  run.items = AXPY_ITEMS;
  run.grid = (n + AXPY_BLOCK * AXPY_ITEMS - 1) / (AXPY_BLOCK * AXPY_ITEMS);
  std::vector<float> x(n), y(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.25f;
    y[i] = static_cast<float>(i % 13);
  }
  const float a = 1.5f;
  float* dx = nullptr;
  float* dy = nullptr;
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  if (cudaError_t e = cudaMalloc(&dx, bytes); e != cudaSuccess) return failed(run, e);
  if (cudaError_t e = cudaMalloc(&dy, bytes); e != cudaSuccess) return failed(run, e);
  cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice);

  void* args[] = {&dx, &dy, const_cast<float*>(&a), &n};
  const dim3 grid(static_cast<unsigned>(run.grid)), block(static_cast<unsigned>(run.block));
  // One checked launch, then the timed ones.
  if (cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(&axpy), grid, block, args);
      e != cudaSuccess)
    return failed(run, e);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return failed(run, e);
  std::vector<float> got(n);
  cudaMemcpy(got.data(), dy, bytes, cudaMemcpyDeviceToHost);
  run.correct = true;
  for (int i = 0; i < n && run.correct; ++i)
    run.correct = std::fabs(got[i] - (a * x[i] + y[i])) <= 1e-4f * (1.0f + std::fabs(got[i]));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int r = 0; r < launches; ++r) {
    cudaEventRecord(start);
    cudaLaunchKernel(reinterpret_cast<const void*>(&axpy), grid, block, args);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return failed(run, e);
  std::sort(times.begin(), times.end());
  run.microseconds = 1000.0 * times[times.size() / 2];
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(dx);
  cudaFree(dy);
  return run;
}
