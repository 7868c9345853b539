// Runs the library's softmax and RMSNorm on the GPU, checks them against a CPU computation,
// and prints the launch configuration each used and its time (median of 20 launches) at
// the two shapes the kernels were tuned for (4096x8192 and 32768x1024), and their geometric
// mean, which is what the tuner minimises.
// Exit codes: 0 correct, 1 wrong results, 3 no GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels.h"

namespace {

constexpr int kRows = 4096;
constexpr int kCols = 8192;
constexpr float kEps = 1e-5f;

void cpu_softmax(const std::vector<float>& x, std::vector<float>& y) {
  for (int r = 0; r < kRows; ++r) {
    const float* xr = &x[static_cast<size_t>(r) * kCols];
    double m = -INFINITY;
    for (int c = 0; c < kCols; ++c) m = std::max(m, static_cast<double>(xr[c]));
    double s = 0;
    for (int c = 0; c < kCols; ++c) s += std::exp(xr[c] - m);
    for (int c = 0; c < kCols; ++c)
      y[static_cast<size_t>(r) * kCols + c] = static_cast<float>(std::exp(xr[c] - m) / s);
  }
}

void cpu_rmsnorm(const std::vector<float>& x, const std::vector<float>& gamma, std::vector<float>& y) {
  for (int r = 0; r < kRows; ++r) {
    const float* xr = &x[static_cast<size_t>(r) * kCols];
    double ss = 0;
    for (int c = 0; c < kCols; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const double inv = 1.0 / std::sqrt(ss / kCols + kEps);
    for (int c = 0; c < kCols; ++c)
      y[static_cast<size_t>(r) * kCols + c] = static_cast<float>(xr[c] * inv * gamma[c]);
  }
}

bool close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float tol = 1e-6f + 1e-4f * std::fabs(want[i]);
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (bad++ == 0)
        std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
    }
  }
  if (bad) std::fprintf(stderr, "%s: %zu of %zu elements wrong\n", what, bad, got.size());
  return bad == 0;
}

template <class Launch>
float median_us(Launch launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms * 1000.0f);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void print_config(const char* name, const LaunchConfig& c) {
  std::printf("%s: grid %d, block %d, row_threads %d, vec %d, unroll %d\n", name, c.grid, c.block,
              c.row_threads, c.vec, c.unroll);
}

// Times `launch(rows, cols)` at each tuned shape (same element count, so the same buffers).
template <class Launch>
void print_times(const char* name, Launch launch) {
  constexpr int kShapes[2][2] = {{kRows, kCols}, {kRows * kCols / 1024, 1024}};
  double log_sum = 0;
  for (const auto& shape : kShapes) {
    const float us = median_us([&] { launch(shape[0], shape[1]); });
    log_sum += std::log(us);
    std::printf("  %s %dx%d: %.1f us\n", name, shape[0], shape[1], us);
  }
  std::printf("  %s geometric mean: %.1f us\n", name, std::exp(log_sum / 2));
}

}  // namespace

int main() {
  const size_t n = static_cast<size_t>(kRows) * kCols;
  std::vector<float> x(n), gamma(kCols), y(n), want(n);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  for (auto& v : x) v = normal(rng);
  for (auto& v : gamma) v = uniform(rng);

  float *dx = nullptr, *dgamma = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "no usable GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  cudaMalloc(&dgamma, kCols * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dgamma, gamma.data(), kCols * sizeof(float), cudaMemcpyHostToDevice);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s (sm_%d%d), %d x %d floats\n", prop.name, prop.major, prop.minor, kRows, kCols);

  bool ok = true;
  LaunchConfig c = softmax_rows_launch(dx, dy, kRows, kCols, nullptr);
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (cudaGetLastError() != cudaSuccess) ok = false;
  cpu_softmax(x, want);
  ok = close(y, want, "softmax") && ok;
  print_config("softmax_rows", c);
  print_times("softmax_rows", [&](int rows, int cols) { softmax_rows_launch(dx, dy, rows, cols, nullptr); });

  c = rmsnorm_rows_launch(dx, dgamma, dy, kRows, kCols, kEps, nullptr);
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  if (cudaGetLastError() != cudaSuccess) ok = false;
  cpu_rmsnorm(x, gamma, want);
  ok = close(y, want, "rmsnorm") && ok;
  print_config("rmsnorm_rows", c);
  print_times("rmsnorm_rows", [&](int rows, int cols) {
    rmsnorm_rows_launch(dx, dgamma, dy, rows, cols, kEps, nullptr);
  });

  std::printf("%s\n", ok ? "results match the CPU" : "RESULTS DIFFER FROM THE CPU");
  return ok ? 0 : 1;
}
