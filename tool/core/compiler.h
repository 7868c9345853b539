#pragma once
// Compiling one kernel source for one GPU architecture: the seam between the tuner and the
// CUDA toolchain (NVRTC, nvcc). Fakes of it make the pipeline testable without a toolkit.
// A compile failure is an outcome (ok = false, with the compiler's log), not an Error:
// the tuner records it as `compile_failed` and moves on.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kev {

// What a compiler decides about the launch of its image, in place of the spec's `launch`:
// Triton's kernels run 32 * num_warps threads, take the dynamic shared memory its compile
// reports, and take two pointers after their own parameters (global and profile scratch,
// null when the compile needs none). Empty for CUDA images: the spec's launch says.
// The most CTAs a thread-block cluster may have without the non-portable opt-in: the
// bound of Triton's num_ctas, a spec's launch.cluster and what a worker or cache accepts.
constexpr unsigned kMaxPortableClusterCtas = 8;

struct ImageLaunch {
  std::optional<unsigned> block_threads;
  std::optional<unsigned> shared_bytes;
  unsigned trailing_null_pointers = 0;
  // Triton's num_ctas: each program is a thread-block cluster of this many CTAs along x
  // (the grid's x times as many blocks, launched with a cluster dimension).
  unsigned cluster_ctas = 1;
  [[nodiscard]] bool empty() const {
    return !block_threads && !shared_bytes && trailing_null_pointers == 0 && cluster_ctas == 1;
  }
};

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
  // Triton sources: (name, Triton type) of each parameter that is not constexpr, in order
  // ("x", "*fp32"); `defines` then hold the constexpr values and num_warps / num_stages.
  // CUDA compilers ignore it.
  std::vector<std::pair<std::string, std::string>> signature;
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
  ImageLaunch launch{};  // set by compilers that decide it (Triton)
};

// Which compiler gets CUDA C++ that holds no host code (a source with host code always goes
// to nvcc). nvcc by default: a CMake build compiles the winners with it, and NVRTC may
// allocate registers otherwise (measured: one spilled where the other did not, 8% apart), so
// the tuner times the machine code the build will ship. NVRTC on request (`tune --compiler
// nvrtc`): for kernels a program compiles at run time with NVRTC.
enum class DeviceCodeCompiler { nvcc, nvrtc };

// Its name in options, traces and lockfile entries, and back ("nvrtc"; anything else: nvcc).
[[nodiscard]] inline const char* compiler_name(DeviceCodeCompiler c) {
  return c == DeviceCodeCompiler::nvrtc ? "nvrtc" : "nvcc";
}
[[nodiscard]] inline DeviceCodeCompiler device_code_of(const std::string& name) {
  return name == "nvrtc" ? DeviceCodeCompiler::nvrtc : DeviceCodeCompiler::nvcc;
}

class Compiler {
 public:
  virtual ~Compiler() = default;
  // Thread-safe: the compile pool calls it from several threads at once.
  virtual CompileOutput compile(const CompileRequest& request) = 0;
  // Name and version, e.g. "nvrtc 13.0": part of the cache key.
  [[nodiscard]] virtual std::string identity() const = 0;
};

}  // namespace kev
