#pragma once
// Compiles device-only sources in process with NVRTC, straight to CUBIN for one sm_XY.
#include <string>

#include "core/compiler.h"

namespace kev::cuda {

struct NvrtcOptions {
  std::string std_flag = "-std=c++17";  // unless the request's flags name a -std
  // Searched after the request's include dirs, for <cuda_runtime.h>, <cuda_fp16.h>...
  std::string toolkit_include;  // empty: toolkit_include_dir()
};

class NvrtcCompiler final : public Compiler {
 public:
  explicit NvrtcCompiler(NvrtcOptions options = {});
  CompileOutput compile(const CompileRequest& request) override;
  [[nodiscard]] std::string identity() const override;  // "nvrtc 13.0"

  // The options NVRTC is given for `request` (shown in logs and docs).
  [[nodiscard]] std::vector<std::string> options_for(const CompileRequest& request) const;

 private:
  NvrtcOptions options_;
};

}  // namespace kev::cuda
