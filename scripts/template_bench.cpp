// Checks and times every point of a shipped template's space on the GPU, without the tuner:
// compiles each point with NVRTC (in parallel), verifies it against the template's naive
// reference on the problems and validate shapes, and times it on the problems (median of
// launches, each from a flushed L2 and a poisoned output), next to the device's measured
// copy bandwidth. With --compile-only it needs no GPU and only compiles every point.
//
// Build (needs the toolkit; nothing else from the project's dependencies):
//   g++ -O2 -std=c++20 -Itool -I$CUDA/include scripts/template_bench.cpp tool/cuda/nvrtc_compiler.cpp \
//     tool/cuda/include_scan.cpp tool/cuda/files.cpp tool/cuda/toolkit.cpp tool/cuda/compile_pool.cpp \
//     -L$CUDA/lib64 -lnvrtc -lcuda -lpthread -o template_bench
// Run: template_bench softmax|rmsnorm [--compile-only] [--arch sm_90] [--template FILE]
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuda/compile_pool.h"
#include "cuda/nvrtc_compiler.h"

namespace {

struct Shape {
  int rows;
  int cols;
};

#define CHECK(call)                                                                  \
  do {                                                                               \
    CUresult r_ = (call);                                                            \
    if (r_ != CUDA_SUCCESS) {                                                        \
      const char* s_ = nullptr;                                                      \
      cuGetErrorString(r_, &s_);                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

struct Point {
  int block, row_threads, vec, unroll;
  [[nodiscard]] std::string key() const {
    return std::to_string(block) + "/" + std::to_string(row_threads) + "/" + std::to_string(vec) +
           "/" + std::to_string(unroll);
  }
};

std::vector<Point> space() {
  std::vector<Point> points;
  for (int b : {64, 128, 256, 512, 1024})
    for (int rt : {32, 64, 128, 256, 512, 1024})
      for (int v : {1, 2, 4})
        for (int u : {1, 2, 4, 8, 16})
          if (rt <= b && v * u <= 32) points.push_back({b, rt, v, u});
  return points;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Device {
  CUdevice dev{};
  CUcontext ctx{};
  CUdeviceptr flush{};
  size_t flush_bytes = 256u << 20;  // several times the L2
};

double copy_bandwidth_gbs(Device& d) {
  const size_t bytes = 1u << 30;
  CUdeviceptr a, b;
  CHECK(cuMemAlloc(&a, bytes));
  CHECK(cuMemAlloc(&b, bytes));
  CHECK(cuMemsetD8(a, 1, bytes));
  CUevent e0, e1;
  CHECK(cuEventCreate(&e0, 0));
  CHECK(cuEventCreate(&e1, 0));
  std::vector<double> t;
  for (int i = 0; i < 23; ++i) {
    CHECK(cuEventRecord(e0, nullptr));
    CHECK(cuMemcpyDtoDAsync(b, a, bytes, nullptr));
    CHECK(cuEventRecord(e1, nullptr));
    CHECK(cuEventSynchronize(e1));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, e0, e1));
    if (i >= 3) t.push_back(ms);
  }
  cuMemFree(a);
  cuMemFree(b);
  (void)d;
  return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
}

struct Buffers {
  CUdeviceptr x{}, gamma{}, y{}, ref{};
  std::vector<float> ref_host;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s softmax|rmsnorm [--compile-only] [--arch sm_XY] [--template FILE]\n", argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const bool rms = kind == "rmsnorm";
  bool compile_only = false;
  std::string arch = "sm_90";
  std::string file = "templates/" + kind + ".cu";
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--compile-only") compile_only = true;
    if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    if (a == "--template" && i + 1 < argc) file = argv[++i];
  }
  const std::string prefix = rms ? "RMSNORM" : "SOFTMAX";
  const std::string kernel = rms ? "rmsnorm_rows" : "softmax_rows";
  const std::string reference = kernel + "_naive";

  auto points = space();
  kev::cuda::NvrtcCompiler nvrtc;
  kev::cuda::CompilePool pool(nvrtc);
  auto request = [&](const Point* p) {
    kev::CompileRequest r;
    r.source_path = file;
    r.kernel_names = {kernel, reference};
    r.arch = arch;
    if (p != nullptr) {
      r.defines = {{prefix + "_BLOCK", std::to_string(p->block)},
                   {prefix + "_ROW_THREADS", std::to_string(p->row_threads)},
                   {prefix + "_VEC", std::to_string(p->vec)},
                   {prefix + "_UNROLL", std::to_string(p->unroll)}};
    }
    return r;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::future<kev::CompileOutput>> futures;
  futures.push_back(pool.submit(request(nullptr)));
  for (const auto& p : points) futures.push_back(pool.submit(request(&p)));
  std::vector<kev::CompileOutput> images;
  int compile_failed = 0;
  for (size_t i = 0; i < futures.size(); ++i) {
    images.push_back(futures[i].get());
    if (!images.back().ok) {
      ++compile_failed;
      std::printf("COMPILE FAILED %s\n%s\n", i == 0 ? "default" : points[i - 1].key().c_str(),
                  images.back().log.c_str());
    }
  }
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s %s: compiled %zu configurations (+ default) for %s with NVRTC on %u threads in %.1f s, %d failed\n",
              kind.c_str(), file.c_str(), points.size(), arch.c_str(), pool.threads(), compile_s, compile_failed);
  if (compile_only) return compile_failed == 0 ? 0 : 1;

  Device d;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&d.dev, 0));
  CHECK(cuCtxCreate(&d.ctx, nullptr, 0, d.dev));
  char name[256];
  CHECK(cuDeviceGetName(name, sizeof name, d.dev));
  CHECK(cuMemAlloc(&d.flush, d.flush_bytes));
  const double copy_gbs = copy_bandwidth_gbs(d);
  std::printf("device: %s, copy bandwidth (device to device, read + write): %.0f GB/s\n", name, copy_gbs);

  std::vector<CUmodule> modules(images.size());
  std::vector<CUfunction> fn(images.size()), ref_fn(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    if (!images[i].ok) continue;
    CHECK(cuModuleLoadData(&modules[i], images[i].image.data()));
    CHECK(cuModuleGetFunction(&fn[i], modules[i], kernel.c_str()));
    CHECK(cuModuleGetFunction(&ref_fn[i], modules[i], reference.c_str()));
  }

  const std::vector<Shape> problems = {{4096, 8192}, {32768, 1024}};
  const std::vector<Shape> validate = {{3, 1000}, {7, 1001}, {2, 40000}};
  std::mt19937 rng(42);
  CUevent e0, e1;
  CHECK(cuEventCreate(&e0, 0));
  CHECK(cuEventCreate(&e1, 0));
  float eps = 1e-5f;

  // time_us[point][problem]; -1 = failed verification
  std::vector<std::vector<double>> time_us(images.size());
  std::vector<int> failures(images.size(), 0);
  std::vector<Shape> shapes = problems;
  shapes.insert(shapes.end(), validate.begin(), validate.end());
  for (size_t s = 0; s < shapes.size(); ++s) {
    const Shape sh = shapes[s];
    const bool timed = s < problems.size();
    const size_t n = size_t(sh.rows) * sh.cols;
    std::vector<float> x(n), gamma(sh.cols);
    std::normal_distribution<float> normal(0.f, 1.f);
    std::uniform_real_distribution<float> uni(0.5f, 1.5f);
    for (auto& v : x) v = normal(rng);
    for (auto& v : gamma) v = uni(rng);
    Buffers b;
    CHECK(cuMemAlloc(&b.x, n * 4));
    CHECK(cuMemAlloc(&b.y, n * 4));
    CHECK(cuMemAlloc(&b.ref, n * 4));
    CHECK(cuMemAlloc(&b.gamma, sh.cols * 4));
    CHECK(cuMemcpyHtoD(b.x, x.data(), n * 4));
    CHECK(cuMemcpyHtoD(b.gamma, gamma.data(), sh.cols * 4));
    int rows = sh.rows, cols = sh.cols;
    auto launch = [&](CUfunction f, CUdeviceptr out, unsigned grid, unsigned block) {
      std::vector<void*> args;
      if (rms) {
        args = {&b.x, &b.gamma, &out, &rows, &cols, &eps};
      } else {
        args = {&b.x, &out, &rows, &cols};
      }
      CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, nullptr, args.data(), nullptr));
    };
    // reference, from the default module
    launch(ref_fn[0], b.ref, unsigned((rows + 127) / 128), 128);
    CHECK(cuCtxSynchronize());
    b.ref_host.resize(n);
    CHECK(cuMemcpyDtoH(b.ref_host.data(), b.ref, n * 4));
    std::vector<float> y(n);
    for (size_t i = 0; i < images.size(); ++i) {
      if (!images[i].ok) continue;
      const Point p = i == 0 ? Point{256, 256, 4, 8} : points[i - 1];
      const unsigned rows_per_block = unsigned(p.block / p.row_threads);
      const unsigned grid = unsigned((rows + rows_per_block - 1) / rows_per_block);
      CHECK(cuMemsetD32(b.y, 0x7fc00001u, n));  // poison: a NaN
      launch(fn[i], b.y, grid, unsigned(p.block));
      CHECK(cuCtxSynchronize());
      CHECK(cuMemcpyDtoH(y.data(), b.y, n * 4));
      size_t bad = 0;
      double worst = 0;
      for (size_t k = 0; k < n; ++k) {
        const double r = b.ref_host[k];
        const double err = std::fabs(double(y[k]) - r);
        if (!(err <= 1e-6 + 1e-5 * std::fabs(r))) {
          ++bad;
          worst = std::max(worst, std::isnan(err) ? INFINITY : err);
        }
      }
      if (bad > 0) {
        ++failures[i];
        std::printf("INCORRECT %s at %dx%d: %zu of %zu elements, worst error %g\n",
                    i == 0 ? "default" : p.key().c_str(), rows, cols, bad, n, worst);
      }
      if (!timed) continue;
      for (int w = 0; w < 3; ++w) launch(fn[i], b.y, grid, unsigned(p.block));
      std::vector<double> t;
      for (int rep = 0; rep < 25; ++rep) {
        CHECK(cuMemsetD32Async(d.flush, unsigned(rep), d.flush_bytes / 4, nullptr));
        CHECK(cuMemsetD32Async(b.y, 0x7fc00001u, n, nullptr));
        CHECK(cuEventRecord(e0, nullptr));
        launch(fn[i], b.y, grid, unsigned(p.block));
        CHECK(cuEventRecord(e1, nullptr));
        CHECK(cuEventSynchronize(e1));
        float ms = 0;
        CHECK(cuEventElapsedTime(&ms, e0, e1));
        t.push_back(ms * 1e3);
      }
      time_us[i].push_back(median(t));
    }
    cuMemFree(b.x);
    cuMemFree(b.y);
    cuMemFree(b.ref);
    cuMemFree(b.gamma);
  }

  int incorrect = 0;
  for (int f : failures) incorrect += f > 0;
  std::printf("verified %zu configurations on %zu shapes: %d incorrect\n", images.size(), shapes.size(), incorrect);
  // Per problem: the default, the best, and its effective bandwidth.
  for (size_t pr = 0; pr < problems.size(); ++pr) {
    const Shape sh = problems[pr];
    const double bytes = (2.0 * sh.rows * sh.cols + (rms ? sh.cols : 0)) * 4.0;
    size_t best = 0;
    for (size_t i = 0; i < images.size(); ++i) {
      if (images[i].ok && failures[i] == 0 && time_us[i].size() > pr &&
          (best == 0 || time_us[i][pr] < time_us[best][pr]))
        best = i;
    }
    auto gbs = [&](size_t i) { return bytes / (time_us[i][pr] * 1e-6) / 1e9; };
    std::printf("%dx%d: default %.1f us (%.0f GB/s, %.0f%% of copy); best %s %.1f us (%.0f GB/s, %.0f%% of copy)\n",
                sh.rows, sh.cols, time_us[0][pr], gbs(0), 100 * gbs(0) / copy_gbs,
                best == 0 ? "default" : points[best - 1].key().c_str(), time_us[best][pr], gbs(best),
                100 * gbs(best) / copy_gbs);
  }
  // Best over both problems by the geometric mean of time relative to the default.
  size_t best = 0;
  double best_score = 1.0;
  for (size_t i = 1; i < images.size(); ++i) {
    if (!images[i].ok || failures[i] != 0 || time_us[i].size() < problems.size()) continue;
    double logsum = 0;
    for (size_t pr = 0; pr < problems.size(); ++pr) logsum += std::log(time_us[i][pr] / time_us[0][pr]);
    const double score = std::exp(logsum / double(problems.size()));
    if (score < best_score) {
      best_score = score;
      best = i;
    }
  }
  std::printf("overall winner (BLOCK/ROW_THREADS/VEC/UNROLL): %s, %.3fx the default's time\n",
              best == 0 ? "default" : points[best - 1].key().c_str(), best_score);
  std::printf("all (BLOCK/ROW_THREADS/VEC/UNROLL: us per problem)\n");
  for (size_t i = 0; i < images.size(); ++i) {
    std::printf("  %s:", i == 0 ? "default" : points[i - 1].key().c_str());
    for (double t : time_us[i]) std::printf(" %.1f", t);
    std::printf("%s\n", failures[i] ? " INCORRECT" : "");
  }
  return incorrect == 0 && compile_failed == 0 ? 0 : 1;
}
