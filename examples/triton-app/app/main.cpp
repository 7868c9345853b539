// Runs the AOT-compiled Triton softmax (kernels/softmax_triton.py, built into this program by
// kernelevo_optimize) at the template's tuned shapes, checks it against a CPU softmax and
// prints the configuration built and its time (median of 20 launches between events).
// No Python at run time: the CUBIN is in the program, launched through the driver API.
// Exit codes: 0 correct, 1 wrong results, 3 no GPU.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "softmax_triton_triton.h"

namespace {

struct Shape {
  int rows;
  int cols;
};
constexpr Shape kShapes[] = {{4096, 8192}, {32768, 1024}, {8192, 16384}};

void cpu_softmax(const std::vector<float>& x, std::vector<float>& y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = &x[static_cast<size_t>(r) * cols];
    double m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(xr[c]));
    double s = 0;
    for (int c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int c = 0; c < cols; ++c)
      y[static_cast<size_t>(r) * cols + c] = static_cast<float>(std::exp(xr[c] - m) / s);
  }
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no GPU\n");
    return 3;
  }
  cudaFree(nullptr);  // makes the device's primary context current for the driver API
  std::printf("softmax_rows_triton: %s\n", softmax_rows_triton_config());
  size_t max_elements = 0;
  for (const Shape& s : kShapes)
    max_elements = std::max(max_elements, static_cast<size_t>(s.rows) * s.cols);
  float* x = nullptr;
  float* y = nullptr;
  if (cudaMalloc(&x, max_elements * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&y, max_elements * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "cannot allocate\n");
    return 3;
  }
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  bool ok = true;
  for (const Shape& s : kShapes) {
    const size_t n = static_cast<size_t>(s.rows) * s.cols;
    std::vector<float> hx(n), hy(n), want(n);
    for (auto& v : hx) v = normal(rng);
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    if (CUresult r = softmax_rows_triton_launch(nullptr, x, y, s.rows, s.cols); r != CUDA_SUCCESS) {
      const char* why = "";
      cuGetErrorString(r, &why);
      std::fprintf(stderr, "launch failed: %s\n", why);
      return 1;
    }
    cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
    cpu_softmax(hx, want, s.rows, s.cols);
    double worst = 0;
    for (size_t i = 0; i < n; ++i)
      worst = std::max(worst, std::abs(static_cast<double>(hy[i]) - want[i]) /
                                  (1e-6 + 1e-5 * std::abs(static_cast<double>(want[i]))));
    std::vector<float> ms;
    for (int i = 0; i < 20; ++i) {
      cudaEventRecord(start);
      softmax_rows_triton_launch(nullptr, x, y, s.rows, s.cols);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const bool pass = worst <= 1.0;
    ok = ok && pass;
    std::printf("  %5d x %5d  %8.1f us  %s (worst error %.2f of the tolerance)\n", s.rows, s.cols,
                ms[ms.size() / 2] * 1000.0, pass ? "ok" : "WRONG", worst);
  }
  cudaFree(x);
  cudaFree(y);
  return ok ? 0 : 1;
}
