// kernelevo/params.h for spike.cu: written by hand in the form `kernelevo header` generates.
// Lockfile entries used (kernel / architecture / device):
//   spike_fill / sm_80 / "NVIDIA A100-SXM4-80GB": SPIKE_BLOCK 128, SPIKE_VEC 2
//   spike_fill / sm_90 / "NVIDIA H200":           SPIKE_BLOCK 512, SPIKE_VEC 4
//   any other architecture: the source's defaults (SPIKE_BLOCK 256, SPIKE_VEC 1)
#pragma once

// An empty kernel of this file's own: asking the runtime about it tells host code which of
// this file's device images it loads.
namespace {
namespace kernelevo_params {
__global__ void probe() {}
}  // namespace kernelevo_params
}  // namespace

#if defined(__CUDA_ARCH__)
// Device code: the values of the architecture this pass compiles for.
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000
#ifndef SPIKE_BLOCK
#define SPIKE_BLOCK 512  // spike_fill / sm_90 / "NVIDIA H200"
#endif
#ifndef SPIKE_VEC
#define SPIKE_VEC 4  // spike_fill / sm_90 / "NVIDIA H200"
#endif
#elif __CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900
#ifndef SPIKE_BLOCK
#define SPIKE_BLOCK 128  // spike_fill / sm_80 / "NVIDIA A100-SXM4-80GB"
#endif
#ifndef SPIKE_VEC
#define SPIKE_VEC 2  // spike_fill / sm_80 / "NVIDIA A100-SXM4-80GB"
#endif
#endif

#else
// Host code: the values of the device code the runtime loads on the current device. The
// runtime picks a SASS image or JIT-compiles a PTX image; either way the function's
// ptxVersion names the virtual architecture it was compiled from, so __CUDA_ARCH__ of the
// code that runs is ptxVersion * 10.
#include <cuda_runtime.h>

#include <atomic>

namespace {
namespace kernelevo_params {

inline int loaded_arch() {
  constexpr int max_devices = 64;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= max_devices) return 0;
  static std::atomic<int> cache[max_devices];
  int arch = cache[device].load(std::memory_order_relaxed);
  if (arch == 0) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, probe) != cudaSuccess) return 0;
    arch = attr.ptxVersion * 10;
    cache[device].store(arch, std::memory_order_relaxed);
  }
  return arch;
}

// nvcc parses device function bodies in the host pass too, so a tuned value must stay a
// constant expression there (a __shared__ array bound). Constant evaluation in the host pass
// gets the lowest built architecture's value; run-time host code gets the loaded one.
constexpr int lowest_built_arch() {
#ifdef __CUDA_ARCH_LIST__
  constexpr int list[] = {__CUDA_ARCH_LIST__};
  int lowest = list[0];
  for (int arch : list) lowest = arch < lowest ? arch : lowest;
  return lowest;
#else
  return 0;
#endif
}

constexpr int SPIKE_BLOCK_for(int arch) {
  return arch >= 900 && arch < 1000 ? 512 : arch >= 800 && arch < 900 ? 128 : 256;
}
constexpr int SPIKE_BLOCK_value() {
  if (__builtin_is_constant_evaluated()) return SPIKE_BLOCK_for(lowest_built_arch());
  return SPIKE_BLOCK_for(loaded_arch());
}
constexpr int SPIKE_VEC_for(int arch) {
  return arch >= 900 && arch < 1000 ? 4 : arch >= 800 && arch < 900 ? 2 : 1;
}
constexpr int SPIKE_VEC_value() {
  if (__builtin_is_constant_evaluated()) return SPIKE_VEC_for(lowest_built_arch());
  return SPIKE_VEC_for(loaded_arch());
}

}  // namespace kernelevo_params
}  // namespace

#ifndef SPIKE_BLOCK
#define SPIKE_BLOCK (::kernelevo_params::SPIKE_BLOCK_value())
#endif
#ifndef SPIKE_VEC
#define SPIKE_VEC (::kernelevo_params::SPIKE_VEC_value())
#endif
#endif
