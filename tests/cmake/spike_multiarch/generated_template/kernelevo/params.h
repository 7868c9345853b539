// kernelevo/params.h for spike_template.cu: written by hand in the form `kernelevo header`
// generates. Lockfile entries used (kernel / architecture / device):
//   spike_template / sm_80 / "NVIDIA A100-SXM4-80GB": SPIKE_TBLOCK 128
//   spike_template / sm_90 / "NVIDIA H200":           SPIKE_TBLOCK 512
#pragma once

#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000
#ifndef SPIKE_TBLOCK
#define SPIKE_TBLOCK 512  // spike_template / sm_90 / "NVIDIA H200"
#endif
#elif __CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900
#ifndef SPIKE_TBLOCK
#define SPIKE_TBLOCK 128  // spike_template / sm_80 / "NVIDIA A100-SXM4-80GB"
#endif
#endif

#else
namespace {
namespace kernelevo_params {

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

constexpr int SPIKE_TBLOCK_for(int arch) {
  return arch >= 900 && arch < 1000 ? 512 : arch >= 800 && arch < 900 ? 128 : 256;
}

// SPIKE_TBLOCK is a template argument of the kernel (spec: kernel "spike_template<SPIKE_TBLOCK>"),
// so host code instantiates it with one compile-time value for every device image.
constexpr bool SPIKE_TBLOCK_agrees() {
#ifdef __CUDA_ARCH_LIST__
  constexpr int list[] = {__CUDA_ARCH_LIST__};
  for (int arch : list)
    if (SPIKE_TBLOCK_for(arch) != SPIKE_TBLOCK_for(list[0])) return false;
#endif
  return true;
}
static_assert(SPIKE_TBLOCK_agrees(),
              "kernelevo: SPIKE_TBLOCK is a template argument of spike_template<SPIKE_TBLOCK>, "
              "so host code needs one compile-time value, but the lockfile gives the built "
              "architectures different values (sm_80: 128, sm_90: 512). Build for one of these "
              "architectures, or lock the same value for all of them.");

}  // namespace kernelevo_params
}  // namespace

#ifndef SPIKE_TBLOCK
   // Every built architecture agrees (checked above): a constant expression.
#define SPIKE_TBLOCK (::kernelevo_params::SPIKE_TBLOCK_for(::kernelevo_params::lowest_built_arch()))
#endif
#endif
