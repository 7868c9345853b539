#pragma once
// Sends each request to its compiler: Triton's for a .py source, nvcc for CUDA C++, or, with
// DeviceCodeCompiler::nvrtc, NVRTC for a source without host code (the request says it holds
// none and the text shows none: source_kind.h).
#include <string>

#include "core/compiler.h"

namespace kev::cuda {

class AutoCompiler final : public Compiler {
 public:
  // All must be thread-safe and outlive this object. Without `triton`, a .py source fails to
  // compile with the message that Triton is not found.
  AutoCompiler(Compiler& nvrtc, Compiler& nvcc, Compiler* triton = nullptr,
               DeviceCodeCompiler device_code = DeviceCodeCompiler::nvcc);
  CompileOutput compile(const CompileRequest& request) override;
  // "nvrtc 13.0 + nvcc 13.0.88": a change in either changes the cache key (Triton's is not
  // asked: it would start Python; its own cache entries carry its identity).
  [[nodiscard]] std::string identity() const override;
  // Which one `request` goes to.
  [[nodiscard]] Compiler& route(const CompileRequest& request) const;

 private:
  Compiler& nvrtc_;
  Compiler& nvcc_;
  Compiler* triton_;
  DeviceCodeCompiler device_code_;
};

}  // namespace kev::cuda
