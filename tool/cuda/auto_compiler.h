#pragma once
// Sends each request to the compiler it needs: Triton's for a .py source, nvcc when the
// request says the source holds host code or the text shows some (source_kind.h), NVRTC
// otherwise.
#include <string>

#include "core/compiler.h"

namespace kev::cuda {

class AutoCompiler final : public Compiler {
 public:
  // All must be thread-safe and outlive this object. Without `triton`, a .py source fails to
  // compile with the message that Triton is not found.
  AutoCompiler(Compiler& device_only, Compiler& with_host_code, Compiler* triton = nullptr);
  CompileOutput compile(const CompileRequest& request) override;
  // "nvrtc 13.0 + nvcc 13.0.88": a change in either changes the cache key (Triton's is not
  // asked: it would start Python; its own cache entries carry its identity).
  [[nodiscard]] std::string identity() const override;
  // Which one `request` goes to.
  [[nodiscard]] Compiler& route(const CompileRequest& request) const;

 private:
  Compiler& device_only_;
  Compiler& with_host_code_;
  Compiler* triton_;
};

}  // namespace kev::cuda
