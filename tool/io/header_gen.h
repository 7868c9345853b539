#pragma once
// `kernelevo/params.h` for one marked source (DESIGN.md section 8, docs/spike-build.md):
// device code gets each architecture's locked values (by __CUDA_ARCH__), host code the
// values of the device image the runtime loads (a plain constant when every built
// architecture agrees, a run-time lookup by the loaded image's ptxVersion otherwise).
// The lockfile is untrusted: only value texts the spec lists ever reach the header.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/lockfile.h"
#include "core/result.h"
#include "core/spec.h"
#include "io/dispatch_gen.h"

namespace kev {

struct HeaderOptions {
  std::string source_name;    // the marked source as named in comments and messages
  std::string source_text;    // its contents (the parameters' #define defaults are read here)
  std::string source_hash;    // "sha256:<hex>" of the source now
  std::string lockfile_name;  // as named in comments and messages
  // The build's architectures ("sm_80", "sm_90a"); empty when unknown ("native", "all"),
  // in which case the header decides from __CUDA_ARCH_LIST__ at compile time.
  std::vector<std::string> archs;
  std::optional<std::string> device;  // the device the build names
  bool strict = false;                // a stale entry is an error, not a warning
};

struct GeneratedHeader {
  std::string text;
  std::vector<std::string> warnings;  // one line each, without the "warning: " prefix
  std::vector<std::string> tuned;     // parameters the lockfile gives a value somewhere
  // Numeric parameters whose built architectures get different values, so host code has no
  // compile-time value of them (KERNELEVO_PARAMS_HOST_CHECK makes one an error there).
  struct Disagreement {
    std::string name;
    std::string values;  // "sm_80: 128, sm_90: 512"
  };
  std::vector<Disagreement> host_disagreements;
  std::vector<KernelDispatch> dispatch;  // the kernels with `dispatch` (their specs: `specs`)
};

// `specs` are the kernels marked in the source; `lock` is null when there is no lockfile.
[[nodiscard]] Result<GeneratedHeader> generate_params_header(const std::vector<KernelSpec>& specs,
                                                             const Lockfile* lock,
                                                             const HeaderOptions& options);

// CMAKE_CUDA_ARCHITECTURES ("80;90-real;90a-virtual") -> {"sm_80", "sm_90", "sm_90a"},
// sorted and unique. "native", "all", "all-major", "OFF" or empty give an empty list.
[[nodiscard]] Result<std::vector<std::string>> parse_cuda_architectures(std::string_view list);

// Writes `text` to `path` (creating parent directories) unless the file already holds it,
// so an unchanged header keeps its timestamp and nothing recompiles. Returns whether it wrote.
[[nodiscard]] Result<bool> write_if_changed(const std::string& path, const std::string& text);

}  // namespace kev
