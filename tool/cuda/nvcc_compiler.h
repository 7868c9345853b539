#pragma once
// Compiles a source with `nvcc -cubin` in a child process (scrubbed environment, no shell,
// a time limit): the compiler for sources that hold host code too, as real .cu files do.
// Kernel names: `extern "C"` names are the symbols; template instances are found by
// demangling the CUBIN's entry symbols (see cubin.h), after substituting the request's
// defines into the name ("softmax<BLOCK>" with -DBLOCK=256 -> "softmax<256>").
#include <optional>
#include <string>
#include <vector>

#include "core/compiler.h"

namespace kev::cuda {

struct NvccOptions {
  std::string nvcc;                     // empty: nvcc_path()
  std::string std_flag = "-std=c++17";  // unless the request's flags name a -std
  double timeout_seconds = 120.0;
};

class NvccCompiler final : public Compiler {
 public:
  explicit NvccCompiler(NvccOptions options = {});
  CompileOutput compile(const CompileRequest& request) override;
  [[nodiscard]] std::string identity() const override;  // "nvcc 13.0.88"

  // The command line for `request` reading `input` and writing `output` (without the
  // dependency-file options), as run.
  [[nodiscard]] std::vector<std::string> command_for(const CompileRequest& request,
                                                     const std::string& input,
                                                     const std::string& output) const;

  // Every file the preprocessor reads for `request` (host and device passes; `nvcc -M`, in
  // the scrubbed environment), canonical, without the source itself; nullopt when it fails.
  // Nothing nvcc prints is kept: a failed include may have shown part of what it read.
  [[nodiscard]] std::optional<std::vector<std::string>> list_dependencies(
      const CompileRequest& request) const;

 private:
  NvccOptions options_;
  std::string identity_;  // computed once: it runs nvcc --version
};

// "softmax<BLOCK>" with {BLOCK: 256} -> "softmax<256>" (whole identifiers only).
[[nodiscard]] std::string expand_macros(
    const std::string& text, const std::vector<std::pair<std::string, std::string>>& defines);

}  // namespace kev::cuda
