#pragma once
// Compiles one configuration of a Triton kernel (a `@triton.jit` function of a .py source) to
// a CUBIN for the request's architecture, without a GPU: a Python child process runs the
// helper shipped with kernelevo (triton_compile.py), which loads the module and calls
// triton.compile(ASTSource(...), target=GPUTarget("cuda", arch, 32), options) and prints one
// bounded JSON object on stdout. The child runs without a shell, under a time limit, with
// an explicit minimal environment (PATH, HOME, TMPDIR, a private Triton cache and home, no
// visible GPU), its stdout and stderr bounded; the answer is checked (a CUBIN with the
// symbol, sizes in range) before it is trusted.
//
// The request: `defines` are the configuration (constexpr parameters by name, and
// num_warps / num_stages / num_ctas), `arg_types` the spec's arguments as Triton types
// (ArgSpec -> "*fp32", "i32"...), `kernel_names` the one function. The output's `launch`
// says what Triton decided: 32 * num_warps threads, its dynamic shared memory, and the two
// trailing scratch pointers Triton 3.x kernels take after their own parameters.
#include <mutex>
#include <optional>
#include <string>

#include "core/compiler.h"
#include "core/spec.h"

namespace kev::cuda {

struct TritonOptions {
  std::string python;  // empty: $KERNELEVO_PYTHON, else the interpreter found at configure time
  std::string helper;  // empty: triton_helper_path()
  double timeout_seconds = 180.0;
  std::size_t max_stdout_bytes = 64u << 20;  // the answer (a CUBIN in base64)
  std::size_t max_stderr_bytes = 1u << 20;   // Triton's and the module's messages
};

class TritonCompiler final : public Compiler {
 public:
  explicit TritonCompiler(TritonOptions options = {});
  CompileOutput compile(const CompileRequest& request) override;
  // "triton 3.6.0 (python /path/python, helper <sha256 prefix>)", asked of the interpreter
  // once, at the first call (so a CUDA-only run never starts Python); "triton (unavailable:
  // ...)" when it cannot import triton.
  [[nodiscard]] std::string identity() const override;
  // Whether the interpreter imports triton; the reason when not (with the hint to set
  // KERNELEVO_PYTHON).
  [[nodiscard]] std::optional<std::string> unavailable() const;
  [[nodiscard]] const std::string& python() const { return options_.python; }

 private:
  void probe() const;
  TritonOptions options_;
  mutable std::once_flag probed_;
  mutable std::string identity_;
  mutable std::optional<std::string> unavailable_;
};

// The helper script: $KERNELEVO_TRITON_HELPER, else next to the installed data
// (share/kernelevo/triton_compile.py relative to the executable), else the source tree's.
[[nodiscard]] std::string triton_helper_path();
// $KERNELEVO_PYTHON, else the configure-time interpreter, else "python3".
[[nodiscard]] std::string triton_python_path();

// A spec argument as a Triton signature type: "*fp32" for float pointers, "i32" for int...
[[nodiscard]] std::string triton_type(const ArgSpec& arg);

// The message every Triton-less machine gets.
inline constexpr const char* kTritonNotFound =
    "Triton not found: set KERNELEVO_PYTHON to an interpreter with triton";

}  // namespace kev::cuda
