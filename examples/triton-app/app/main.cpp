// Runs the AOT-compiled Triton kernels (kernels/softmax_triton.py and
// kernels/bias_gelu_triton.py, built into this program by kernelevo_optimize) at the
// templates' tuned shapes, checks each against a CPU result and prints the configuration built
// and its time (median of 20 launches between events). No Python at run time: the CUBINs are in
// the program, launched through the driver API (a configuration with num_ctas > 1 as clusters).
// Exit codes: 0 correct, 1 wrong results or a failed launch, 3 no GPU.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "bias_gelu_triton_triton.h"
#include "softmax_triton_triton.h"

namespace {

struct Shape {
  int rows;
  int cols;
};

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

void cpu_bias_gelu(const std::vector<float>& x, const std::vector<float>& bias,
                   std::vector<float>& y, int rows, int cols) {
  for (size_t i = 0; i < static_cast<size_t>(rows) * cols; ++i) {
    const double v = static_cast<double>(x[i]) + bias[i % cols];
    y[i] = static_cast<float>(0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440)));
  }
}

// One kernel at one shape: launched once and checked against `want` (rtol 1e-5, atol 1e-6),
// then timed. False on a failed launch or a wrong result.
bool run(const char* name, const Shape& s, const std::function<CUresult()>& launch, float* y,
         const std::vector<float>& want) {
  const size_t n = want.size();
  if (CUresult r = launch(); r != CUDA_SUCCESS) {
    const char* why = "";
    cuGetErrorString(r, &why);
    std::fprintf(stderr, "%s: launch failed: %s\n", name, why);
    return false;
  }
  std::vector<float> got(n);
  cudaMemcpy(got.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  double worst = 0;
  for (size_t i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]) /
                                (1e-6 + 1e-5 * std::abs(static_cast<double>(want[i]))));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  const bool pass = worst <= 1.0;
  std::printf("  %-20s %5d x %5d  %8.1f us  %s (worst error %.2f of the tolerance)\n", name, s.rows,
              s.cols, ms[ms.size() / 2] * 1000.0, pass ? "ok" : "WRONG", worst);
  return pass;
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
  std::printf("bias_gelu_triton: %s\n", bias_gelu_triton_config());
  const Shape softmax_shapes[] = {{4096, 8192}, {32768, 1024}, {8192, 16384}};
  const Shape gelu_shapes[] = {{8192, 8192}, {4096, 4096}};
  const size_t max_elements = size_t{8192} * 16384;
  float* x = nullptr;
  float* y = nullptr;
  float* bias = nullptr;
  if (cudaMalloc(&x, max_elements * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&y, max_elements * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&bias, 16384 * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "cannot allocate\n");
    return 3;
  }
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  bool ok = true;
  for (const Shape& s : softmax_shapes) {
    const size_t n = static_cast<size_t>(s.rows) * s.cols;
    std::vector<float> hx(n), want(n);
    for (auto& v : hx) v = normal(rng);
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cpu_softmax(hx, want, s.rows, s.cols);
    ok &= run(
        "softmax_rows_triton", s,
        [&] { return softmax_rows_triton_launch(nullptr, x, y, s.rows, s.cols); }, y, want);
  }
  for (const Shape& s : gelu_shapes) {
    const size_t n = static_cast<size_t>(s.rows) * s.cols;
    std::vector<float> hx(n), hb(s.cols), want(n);
    for (auto& v : hx) v = normal(rng);
    for (auto& v : hb) v = uniform(rng);
    cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(bias, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice);
    cpu_bias_gelu(hx, hb, want, s.rows, s.cols);
    ok &= run(
        "bias_gelu_triton", s,
        [&] { return bias_gelu_triton_launch(nullptr, x, bias, y, s.rows, s.cols); }, y, want);
  }
  cudaFree(x);
  cudaFree(y);
  cudaFree(bias);
  return ok ? 0 : 1;
}
