#pragma once
// Which text a build compiles for a marked source: the variant `kernelevo evolve` recorded
// in the lockfile, while it is current, else the original. Run at build time by
// `kernelevo select-source` (cmake/KernelEvo.cmake), so configuring stays fast and editing
// the lockfile or the variant rebuilds that source alone.
//
// A variant is current when its file exists inside the lockfile's directory, its sha256 is
// the one recorded, and the original's sha256 is the recorded base_source_hash (the
// variant was evolved from the original as it is now).
#include <filesystem>
#include <string>
#include <vector>

#include "core/lockfile.h"
#include "core/result.h"

namespace kev {

struct SelectedSource {
  // The text to compile: the variant's, after a #line naming its file, with its
  // `#include "name"` made absolute where the original's directory holds `name` (so they
  // resolve as the original's do), or an #include of the original by its absolute path
  // (its own relative includes then resolve from its directory).
  std::string text;
  std::filesystem::path variant;  // the variant's file, when one is built
  std::string kernel_id;          // whose variant it is
  // One line each for the build's output: what is built, or why the original is built
  // although a variant is recorded. Empty when the source has no variant.
  std::vector<std::string> notes;
  // Files whose change must re-run the selection besides the original and the lockfile:
  // the recorded variant files that exist.
  std::vector<std::filesystem::path> depends;
};

struct SelectOptions {
  std::filesystem::path source;    // the original marked source
  std::filesystem::path lockfile;  // variants and sources are relative to its directory
  std::string source_name;         // as named in notes ("src/softmax.cu")
  bool strict = false;             // a recorded variant that is not current is an error
};

// `lock` is null when there is no lockfile. Kernels belong to `source` when their `source`
// (relative to the lockfile's directory) is the same file. A source builds at most one
// variant: where several kernels of one source have a current one, the first by kernel id
// is built and the others are named in a note.
[[nodiscard]] Result<SelectedSource> select_source(const Lockfile* lock,
                                                   const SelectOptions& options);

// A Makefile-style dependency file: "<target>: <dep> <dep>...", spaces escaped.
[[nodiscard]] std::string depfile_text(const std::filesystem::path& target,
                                       const std::vector<std::filesystem::path>& depends);

}  // namespace kev
