// Calls the bf16 GEMM of a dispatching gemm_sm90 build at a decode-like and two larger M, each
// through the variant gemm_launch.cu's dispatch picks, and the fp8 GEMM; checks every output
// against a product computed here in double. Prints each call's variant and error; exits 0
// when all agree, 1 when one does not, and 2 (saying so) with no usable sm_90 GPU.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

extern "C" cudaError_t gemm_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c,
                                 int m, int n, int k);
extern "C" cudaError_t gemm_fp8(const __nv_fp8_e4m3* a, const __nv_fp8_e4m3* b, __nv_bfloat16* c,
                                const float* sa, const float* sb, int m, int n, int k);
extern "C" int gemm_bf16_variant(int m);
extern "C" int gemm_fp8_variant(int m);

namespace {

template <class T>
T* to_device(const std::vector<T>& host) {
  T* p = nullptr;
  if (cudaMalloc(&p, host.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

// Small integers: exact in bf16 and e4m3, so every product and sum is exact in fp32.
float small(int i, int salt) { return static_cast<float>((i * 7 + salt * 13) % 9 - 4); }

bool check(const char* what, int m, int n, const std::vector<__nv_bfloat16>& c,
           const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::fmax(worst, std::fabs(static_cast<double>(__bfloat162float(c[i])) - want[i]) /
                                 (1.0 + std::fabs(want[i])));
  const bool ok = worst <= 1e-2;
  std::printf("%s M=%d N=%d: %s (largest relative error %.2e)\n", what, m, n,
              ok ? "agrees" : "DIFFERS", worst);
  return ok;
}

bool run_bf16(int m, int n, int k) {
  std::vector<__nv_bfloat16> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16(small(static_cast<int>(i), 1));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16(small(static_cast<int>(i), 2));
  std::vector<double> want(static_cast<std::size_t>(m) * n, 0.0);
  for (int r = 0; r < m; ++r)
    for (int x = 0; x < k; ++x)
      for (int col = 0; col < n; ++col)
        want[static_cast<std::size_t>(r) * n + col] +=
            static_cast<double>(__bfloat162float(a[static_cast<std::size_t>(r) * k + x])) *
            __bfloat162float(b[static_cast<std::size_t>(x) * n + col]);
  __nv_bfloat16* da = to_device(a);
  __nv_bfloat16* db = to_device(b);
  __nv_bfloat16* dc = nullptr;
  cudaMalloc(&dc, want.size() * sizeof(__nv_bfloat16));
  const cudaError_t e = gemm_bf16(da, db, dc, m, n, k);
  const cudaError_t s = cudaDeviceSynchronize();
  std::vector<__nv_bfloat16> c(want.size());
  cudaMemcpy(c.data(), dc, c.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("bf16 M=%d: variant %d\n", m, gemm_bf16_variant(m));
  if (e != cudaSuccess || s != cudaSuccess) {
    std::printf("bf16 M=%d: launch failed: %s\n", m, cudaGetErrorString(e != cudaSuccess ? e : s));
    return false;
  }
  return check("bf16", m, n, c, want);
}

bool run_fp8(int m, int n, int k) {
  std::vector<__nv_fp8_e4m3> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(n) * k);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = __nv_fp8_e4m3(small(static_cast<int>(i), 3));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = __nv_fp8_e4m3(small(static_cast<int>(i), 4));
  const float scales[2] = {0.5f, 0.25f};
  std::vector<double> want(static_cast<std::size_t>(m) * n, 0.0);
  for (int r = 0; r < m; ++r)
    for (int col = 0; col < n; ++col) {
      double s = 0;
      for (int x = 0; x < k; ++x)
        s += static_cast<double>(static_cast<float>(a[static_cast<std::size_t>(r) * k + x])) *
             static_cast<float>(b[static_cast<std::size_t>(col) * k + x]);
      want[static_cast<std::size_t>(r) * n + col] = s * scales[0] * scales[1];
    }
  __nv_fp8_e4m3* da = to_device(a);
  __nv_fp8_e4m3* db = to_device(b);
  float* ds = to_device(std::vector<float>(scales, scales + 2));
  __nv_bfloat16* dc = nullptr;
  cudaMalloc(&dc, want.size() * sizeof(__nv_bfloat16));
  const cudaError_t e = gemm_fp8(da, db, dc, ds, ds + 1, m, n, k);
  const cudaError_t s = cudaDeviceSynchronize();
  std::vector<__nv_bfloat16> c(want.size());
  cudaMemcpy(c.data(), dc, c.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(ds);
  cudaFree(dc);
  std::printf("fp8 M=%d: variant %d\n", m, gemm_fp8_variant(m));
  if (e != cudaSuccess || s != cudaSuccess) {
    std::printf("fp8 M=%d: launch failed: %s\n", m, cudaGetErrorString(e != cudaSuccess ? e : s));
    return false;
  }
  return check("fp8", m, n, c, want);
}

}  // namespace

int main() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess || prop.major != 9 || prop.minor != 0) {
    std::printf("no sm_90 GPU: nothing run\n");
    return 2;
  }
  bool ok = run_bf16(16, 512, 1024);   // the decode bucket
  ok = run_bf16(520, 776, 264) && ok;  // the other bucket, with partial tiles
  ok = run_bf16(64, 1001, 256) && ok;  // N not a multiple of 8: no tensor maps, copies instead
  ok = run_fp8(256, 512, 384) && ok;  // one pair of CTAs multicasting B per tile column
  ok = run_fp8(384, 512, 384) && ok;  // an odd row of tiles: its partner is past M
  return ok ? 0 : 1;
}
