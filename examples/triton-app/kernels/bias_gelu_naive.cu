// The reference of bias_gelu_triton.py: the naive kernel of kernelevo's templates/bias_gelu.cu
// (one thread per element over any grid, double inside), alone, so the example needs only
// the kernel it checks against.
#include <cuda_runtime.h>

extern "C" __global__ void bias_gelu_naive(const float* __restrict__ x,
                                           const float* __restrict__ bias, float* __restrict__ y,
                                           int rows, int cols) {
  const long long n = static_cast<long long>(rows) * cols;
  const long long threads = static_cast<long long>(gridDim.x) * gridDim.y * blockDim.x;
  const long long first =
      (static_cast<long long>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  for (long long i = first; i < n; i += threads) {
    const double v = static_cast<double>(x[i]) + bias[i % cols];
    y[i] = static_cast<float>(0.5 * v * (1.0 + erf(v * 0.70710678118654752440)));
  }
}
