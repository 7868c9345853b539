#include "cuda/toolkit.h"

#include <cstdlib>
#include <filesystem>

namespace kev::cuda {

std::string nvcc_path() {
  if (const char* env = std::getenv("KERNELEVO_NVCC"); env != nullptr && *env != '\0') return env;
#ifdef KERNELEVO_NVCC
  return KERNELEVO_NVCC;
#else
  return "nvcc";
#endif
}

std::string toolkit_include_dir() {
  const std::filesystem::path nvcc = nvcc_path();
  if (!nvcc.has_parent_path()) return "/usr/local/cuda/include";
  return (nvcc.parent_path().parent_path() / "include").string();
}

}  // namespace kev::cuda
