#pragma once
// Compiling one kernel source for one GPU architecture: the seam between the tuner and the
// CUDA toolchain (NVRTC, nvcc). Fakes of it make the pipeline testable without a toolkit.
// A compile failure is an outcome (ok = false, with the compiler's log), not an Error:
// the tuner records it as `compile_failed` and moves on.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kev {

struct CompileRequest {
  // Path of the source as given (error messages, the directory searched for "..." includes,
  // the file nvcc compiles when `source_text` is empty).
  std::string source_path;
  // The text to compile. When empty, the file at `source_path` is read.
  std::string source_text;
  // Entry points to resolve: plain `extern "C"` names or template instances used as name
  // expressions ("softmax<256>"). Macros in them are expanded by the compiler.
  std::vector<std::string> kernel_names;
  // -DNAME=VALUE (an empty VALUE gives -DNAME), in this order.
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::string> include_dirs;
  std::vector<std::string> flags;  // passed verbatim, after the options kernelevo sets
  std::string arch = "sm_90";      // "sm_80", "sm_90", "sm_90a"...
  bool host_code = false;          // the source holds host code: only nvcc can compile it
};

struct CompileOutput {
  bool ok = false;
  std::string image;  // CUBIN bytes for `arch`
  // kernel name as requested -> symbol name in `image` (what cuModuleGetFunction wants).
  std::map<std::string, std::string> lowered_names;
  std::string log;  // the compiler's diagnostics (kept on failure and on success)
  bool cached = false;
  double seconds = 0.0;  // wall time of the compile (of the lookup when cached)
  // Files other than the source itself that the compile read (project headers, not the
  // toolkit's): part of the cache key.
  std::vector<std::string> dependencies;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  // Thread-safe: the compile pool calls it from several threads at once.
  virtual CompileOutput compile(const CompileRequest& request) = 0;
  // Name and version, e.g. "nvrtc 13.0": part of the cache key.
  [[nodiscard]] virtual std::string identity() const = 0;
};

}  // namespace kev
