// Runs chunked_scale (as this build compiled it: the evolved variant or the original) on
// 64 Mi floats, checks every element against the CPU, and prints the median of 50 launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" int chunked_scale_block();
extern "C" cudaError_t chunked_scale_launch(const float* x, float* y, float a, int n,
                                            cudaStream_t stream);

#define CHECK(call)                                                                   \
  do {                                                                                \
    if (cudaError_t e = (call); e != cudaSuccess) {                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  const int n = 1 << 26;
  const float a = 1.5f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(0.001f * static_cast<float>(i));
  float *dx = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, sizeof(float) * n));
  CHECK(cudaMalloc(&dy, sizeof(float) * n));
  CHECK(cudaMemcpy(dx, x.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dy, 0xff, sizeof(float) * n));
  CHECK(chunked_scale_launch(dx, dy, a, n, nullptr));
  CHECK(cudaMemcpy(y.data(), dy, sizeof(float) * n, cudaMemcpyDeviceToHost));
  long wrong = 0;
  for (int i = 0; i < n; ++i)
    if (y[i] != a * x[i]) ++wrong;

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(50);
  for (float& t : ms) {
    CHECK(cudaEventRecord(start));
    CHECK(chunked_scale_launch(dx, dy, a, n, nullptr));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  std::sort(ms.begin(), ms.end());
  const double us = ms[ms.size() / 2] * 1000.0;
  std::printf("chunked_scale: block %d, median %.1f us (%.0f GB/s), %ld of %d elements wrong\n",
              chunked_scale_block(), us, 8.0 * n / (us * 1e-6) / 1e9, wrong, n);
  return wrong == 0 ? 0 : 1;
}
