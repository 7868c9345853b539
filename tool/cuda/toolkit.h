#pragma once
// Where the CUDA toolkit this build found lives.
#include <string>

namespace kev::cuda {

// Path of nvcc: $KERNELEVO_NVCC if set, else the one CMake found at build time.
[[nodiscard]] std::string nvcc_path();
// The toolkit's include directory, as nvcc reports it (a wrapper nvcc on PATH still leads to
// the real toolkit), else the one beside nvcc's bin/. NVRTC needs it for <cuda_runtime.h>,
// <cuda_fp16.h> and friends; the include policy counts it as the toolkit's. Asked once per
// nvcc path.
[[nodiscard]] std::string toolkit_include_dir();

}  // namespace kev::cuda
