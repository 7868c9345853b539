#pragma once
// Small helpers over the CUDA driver API: readable errors, and which errors leave the
// context unusable (after those, only a new process can use the GPU again).
#include <cuda.h>

#include <string>

namespace kev::cuda {

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
[[nodiscard]] std::string driver_error(CUresult r);
// Errors after which every later call in this context fails (a faulting kernel).
[[nodiscard]] bool is_context_fatal(CUresult r);
// Whether the driver library (libcuda.so.1, installed with the GPU driver) could be loaded.
[[nodiscard]] bool driver_library_found();

}  // namespace kev::cuda
