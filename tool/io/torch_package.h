#pragma once
// The files of the Python package `kernelevo export --torch` writes (docs/torch-export.md):
// kernel.json (the spec's arguments, launch geometry, tolerance, problems and, per
// architecture, the locked winners and the reference with their cubins' names and hashes),
// the cubins, a generated __init__.py and the runtime, test and benchmark modules, which are
// project files embedded in the binary (tool/io/torch_package/*.py, bench/templates/
// spec_expr.py and cuda_launch.py). The spec and the lockfile come from pull requests: none
// of their strings is written as Python code; kernel.json holds them as JSON data, and
// __init__.py holds only names checked to be Python identifiers, numbers and dtype names.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buckets.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"
#include "core/torch_signature.h"

namespace kev {

struct TorchImage {
  std::string bytes;     // the cubin
  std::string function;  // its entry point's symbol (cuModuleGetFunction's name)
};

struct TorchVariant {
  ParamSet params;                    // the parameters compiled (the source's defaults filled in)
  std::optional<BucketRange> bucket;  // the sizes of `TorchArch::by` it serves
  std::optional<double> time_us;      // as the lockfile records them
  std::optional<double> baseline_us;
  // The define its one-size bucket's winner was compiled with (bucket_compile_define).
  std::optional<std::string> size_define;
  TorchImage image;
};

struct TorchArch {
  std::string arch;                    // "sm_90", checked by parse_arch
  std::string choice;                  // where the winners come from, one line
  std::string by;                      // the bucketed dimension, empty without buckets
  std::vector<TorchVariant> variants;  // one without buckets
  TorchImage reference;                // the reference kernel, compiled with the defaults
};

struct TorchPackageOptions {
  std::string package;        // the Python package name (an identifier)
  std::string lockfile_name;  // as named in kernel.json
  std::string source_hash;    // "sha256:<hex>" of the source exported
  ParamSet defaults;          // the source's defaults (the reference's launch geometry)
  // A Python file the person exporting named (--torch-equivalent): copied as _equivalent.py.
  std::optional<std::string> equivalent_text;
  std::string equivalent_name;  // its name as given
};

struct PackageFile {
  std::string path;  // relative to the package directory, '/'-separated
  std::string bytes;
};

// The project's Python files every package carries: (name in the package, contents).
struct EmbeddedFile {
  std::string_view name;
  std::string_view text;
};
[[nodiscard]] const std::vector<EmbeddedFile>& torch_package_runtime_files();

// Every file of the package, kernel.json and __init__.py first, then the embedded modules
// and the cubins.
[[nodiscard]] Result<std::vector<PackageFile>> torch_package_files(
    const KernelSpec& spec, const TorchSignature& signature, const std::vector<TorchArch>& archs,
    const TorchPackageOptions& options);

// kernel.json alone and __init__.py alone (the golden tests' subjects).
[[nodiscard]] std::string torch_kernel_json(const KernelSpec& spec, const TorchSignature& signature,
                                            const std::vector<TorchArch>& archs,
                                            const TorchPackageOptions& options);
[[nodiscard]] std::string torch_init_py(const KernelSpec& spec, const TorchSignature& signature,
                                        const std::vector<TorchArch>& archs,
                                        const TorchPackageOptions& options);

// Writes `files` as directory `dir` (its parent must exist), replacing a package exported
// before (one whose kernel.json names this generator); anything else at `dir` is an error.
// The new package is written beside it and renamed into place.
[[nodiscard]] Status write_torch_package(const std::filesystem::path& dir,
                                         const std::vector<PackageFile>& files);

}  // namespace kev
