// Runs the library's softmax and RMSNorm on the GPU at the two shapes they were tuned for
// (4096x8192 and 32768x1024) and at one they were not (13107x2560, between softmax's two
// buckets of cols), checks each against a CPU computation, and prints the launch
// configuration each used and its time (median of 20 launches, each from a cold L2 as the
// tuner times them), and the geometric mean over the tuned shapes, which the tuner minimises.
// Exit codes: 0 correct, 1 wrong results, 3 no GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels.h"

namespace {

struct Shape {
  int rows;
  int cols;
  bool tuned;
};
// The same element count at every shape, so one set of buffers serves them all.
constexpr Shape kShapes[] = {{4096, 8192, true}, {32768, 1024, true}, {13107, 2560, false}};
constexpr int kMaxCols = 8192;
constexpr size_t kElements = 4096ull * 8192;
constexpr size_t kFlushBytes = 256ull << 20;  // several times the L2 of any current GPU
constexpr float kEps = 1e-5f;

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

void cpu_rmsnorm(const std::vector<float>& x, const std::vector<float>& gamma,
                 std::vector<float>& y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = &x[static_cast<size_t>(r) * cols];
    double ss = 0;
    for (int c = 0; c < cols; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const double inv = 1.0 / std::sqrt(ss / cols + kEps);
    for (int c = 0; c < cols; ++c)
      y[static_cast<size_t>(r) * cols + c] = static_cast<float>(xr[c] * inv * gamma[c]);
  }
}

// Counts the elements of the first `n` outside the tolerance (the first one is reported).
size_t count_wrong(const std::vector<float>& got, const std::vector<float>& want, size_t n,
                   const char* what) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const float tol = 1e-6f + 1e-4f * std::fabs(want[i]);
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (bad++ == 0)
        std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", what, i, got[i], want[i]);
    }
  }
  return bad;
}

// Median of 20 launches, each timed alone by events after the L2 was overwritten.
template <class Launch>
float median_us(Launch launch, void* flush) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) launch();
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    cudaMemsetAsync(flush, i & 0xff, kFlushBytes);
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

// Checks and times one kernel at every shape; `launch(rows, cols)` runs it on the device
// buffers, `cpu(rows, cols)` fills `want`. Returns whether every shape matched.
template <class Launch, class Cpu>
bool run_kernel(const char* name, Launch launch, Cpu cpu, float* dy, std::vector<float>& y,
                std::vector<float>& want, void* flush) {
  bool ok = true;
  double log_sum = 0;
  int tuned = 0;
  for (const Shape& s : kShapes) {
    const size_t n = static_cast<size_t>(s.rows) * s.cols;
    cudaMemset(dy, 0xff, kElements * sizeof(float));  // NaN where nothing is written
    const LaunchConfig c = launch(s.rows, s.cols);
    cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    const cudaError_t err = cudaGetLastError();
    cpu(s.rows, s.cols);
    const size_t wrong = err == cudaSuccess ? count_wrong(y, want, n, name) : n;
    ok = ok && wrong == 0;
    const float us = median_us([&] { launch(s.rows, s.cols); }, flush);
    if (s.tuned) {
      log_sum += std::log(us);
      ++tuned;
    }
    std::printf(
        "%s %dx%d (%s): grid %d, block %d, row_threads %d, vec %d, unroll %d: %.1f us, %s\n", name,
        s.rows, s.cols, s.tuned ? "tuned shape" : "untuned shape", c.grid, c.block, c.row_threads,
        c.vec, c.unroll, us, wrong == 0 ? "matches the CPU" : "DIFFERS FROM THE CPU");
    if (wrong)
      std::fprintf(stderr, "%s %dx%d: %zu of %zu elements wrong\n", name, s.rows, s.cols, wrong, n);
  }
  std::printf("%s geometric mean over the tuned shapes: %.1f us\n", name,
              std::exp(log_sum / tuned));
  return ok;
}

}  // namespace

int main() {
  std::vector<float> x(kElements), gamma(kMaxCols), y(kElements), want(kElements);
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
  for (auto& v : x) v = normal(rng);
  for (auto& v : gamma) v = uniform(rng);

  float *dx = nullptr, *dgamma = nullptr, *dy = nullptr;
  void* flush = nullptr;
  if (cudaMalloc(&dx, kElements * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "no usable GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  cudaMalloc(&dgamma, kMaxCols * sizeof(float));
  cudaMalloc(&dy, kElements * sizeof(float));
  cudaMalloc(&flush, kFlushBytes);
  cudaMemcpy(dx, x.data(), kElements * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dgamma, gamma.data(), kMaxCols * sizeof(float), cudaMemcpyHostToDevice);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s (sm_%d%d), %zu floats per shape\n", prop.name, prop.major, prop.minor,
              kElements);

  bool ok = run_kernel(
      "softmax_rows",
      [&](int rows, int cols) { return softmax_rows_launch(dx, dy, rows, cols, nullptr); },
      [&](int rows, int cols) { cpu_softmax(x, want, rows, cols); }, dy, y, want, flush);
  ok = run_kernel(
           "rmsnorm_rows",
           [&](int rows, int cols) {
             return rmsnorm_rows_launch(dx, dgamma, dy, rows, cols, kEps, nullptr);
           },
           [&](int rows, int cols) { cpu_rmsnorm(x, gamma, want, rows, cols); }, dy, y, want,
           flush) &&
       ok;

  std::printf("%s\n", ok ? "results match the CPU" : "RESULTS DIFFER FROM THE CPU");
  return ok ? 0 : 1;
}
