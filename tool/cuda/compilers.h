#pragma once
// NVRTC, nvcc and Triton, each behind the disk compile cache, and the AutoCompiler that sends each
// source to the one it needs: what `tune`, `check` and `compare` compile with, made here only
// (evolve compiles model output with nvcc alone: evolve_gpu.cpp). Thread-safe.
#include "cuda/auto_compiler.h"
#include "cuda/compile_cache.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/triton_compiler.h"

namespace kev::cuda {

struct CachedCompilers {
  CachedCompilers() = default;
  CachedCompilers(const CachedCompilers&) = delete;  // the caches refer to the members
  CachedCompilers& operator=(const CachedCompilers&) = delete;

  NvrtcCompiler nvrtc;
  NvccCompiler nvcc;  // asks nvcc for its version
  CachingCompiler cached_nvrtc{nvrtc, CompileCache()};
  CachingCompiler cached_nvcc{nvcc, CompileCache()};
  TritonCompiler triton;  // starts Python at its first compile only
  CachingCompiler cached_triton{triton, CompileCache()};
  AutoCompiler automatic{cached_nvrtc, cached_nvcc, &cached_triton};  // nvcc for CUDA C++
  // NVRTC for device-only sources (an entry tuned with --compiler nvrtc).
  AutoCompiler automatic_nvrtc{cached_nvrtc, cached_nvcc, &cached_triton,
                               DeviceCodeCompiler::nvrtc};
  // The one of the two that sends device-only code to `device_code`.
  AutoCompiler& automatic_for(DeviceCodeCompiler device_code) {
    return device_code == DeviceCodeCompiler::nvrtc ? automatic_nvrtc : automatic;
  }
};

}  // namespace kev::cuda
