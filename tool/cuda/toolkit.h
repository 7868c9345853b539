#pragma once
// Where the CUDA toolkit this build found lives.
#include <string>

namespace kev::cuda {

// Path of nvcc: $KERNELEVO_NVCC if set, else the one CMake found at build time.
[[nodiscard]] std::string nvcc_path();
// The toolkit's include directory (beside nvcc's bin/): NVRTC needs it for <cuda_runtime.h>,
// <cuda_fp16.h> and friends.
[[nodiscard]] std::string toolkit_include_dir();

}  // namespace kev::cuda
