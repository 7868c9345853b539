#pragma once
// Which text a build compiles for a marked source: the variant `kernelevo evolve` recorded
// in the lockfile, while it is current, else the original. Run at build time by
// `kernelevo select-source` (cmake/KernelEvo.cmake), so configuring stays fast and editing
// the lockfile or the variant rebuilds that source alone.
//
// The lockfile is untrusted (it arrives in pull requests); the original on disk is what the
// variant is judged against. A variant is current when its file is a .cu under the
// lockfile's kernelevo-variants/ folder (links resolved), its sha256 is the one recorded,
// the original's sha256 is the recorded base_source_hash (the variant was evolved from the
// original as it is now), and it keeps every part of the original that evolve may not change
// (core/kernel_regions.h: the spec block, the reference kernel, the kernel's signature and
// everything outside the kernel), located by the kernel's spec: a mark in the original, or
// one of `SelectOptions::kernels`. A recorded kernel id the original does not mark is never
// built.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/kernel_regions.h"
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
  // By kernel id: the kernels of `source` that a project kernelevo.yaml specifies (those
  // marked in the source are read from it).
  std::map<std::string, KernelNames> kernels;
};

// `lock` is null when there is no lockfile. Kernels belong to `source` when their `source`
// (relative to the lockfile's directory) is the same file. A source builds at most one
// variant: where several kernels of one source have a current one, the first by kernel id
// is built and the others are named in a note.
[[nodiscard]] Result<SelectedSource> select_source(const Lockfile* lock,
                                                   const SelectOptions& options);

// `text`, a copy of a source compiled from another directory, as the compiler must see it:
// after a #line naming `named_as`, with its `#include "name"` made absolute where
// `includes_from` (the original's directory) holds `name`.
[[nodiscard]] Result<std::string> relocated_source(const std::string& text,
                                                   const std::filesystem::path& named_as,
                                                   const std::filesystem::path& includes_from);

// A Makefile-style dependency file: "<target>: <dep> <dep>...", spaces escaped.
[[nodiscard]] std::string depfile_text(const std::filesystem::path& target,
                                       const std::vector<std::filesystem::path>& depends);

}  // namespace kev
