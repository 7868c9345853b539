#pragma once
// The compiler for model-written source. Before `inner` compiles a request, `nvcc -M`
// (scrubbed environment) lists every file its preprocessor reads, host and device passes;
// a file the policy refuses stops the request with a log that names the file and nothing
// the preprocessor printed. `inner` runs in a child process too (nvcc), so no compile of
// untrusted text happens in this process, whose memory holds the API key.
#include <string>

#include "core/compiler.h"
#include "core/source_safety.h"
#include "cuda/nvcc_compiler.h"

namespace kev::cuda {

class UntrustedSourceCompiler final : public Compiler {
 public:
  // All three must outlive this object; `inner` is usually a cached nvcc.
  UntrustedSourceCompiler(const NvccCompiler& lister, Compiler& inner, const IncludePolicy& policy);
  CompileOutput compile(const CompileRequest& request) override;
  [[nodiscard]] std::string identity() const override { return inner_.identity(); }

 private:
  const NvccCompiler& lister_;
  Compiler& inner_;
  const IncludePolicy& policy_;
};

}  // namespace kev::cuda
