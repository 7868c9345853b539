#pragma once
// Loads every kernel spec of a project: `@kernelevo` blocks of .cu sources and a project
// kernelevo.yaml, validated in full before any work starts. All errors are collected, not
// just the first, each naming file:line:column.
#include <string>
#include <vector>

#include "core/result.h"
#include "core/spec.h"

namespace kev {

struct SpecLoad {
  std::vector<KernelSpec> specs;
  std::vector<Error> errors;
  std::vector<Error> warnings;
  // Directories a walk left out (io/foreign_tree.h), sorted, hidden ones not listed.
  std::vector<std::string> skipped;
};

// `paths`: .cu files, kernelevo.yaml files, or directories searched recursively for *.cu
// (and headers, where a mark is an error); a kernelevo.yaml directly inside a given
// directory is read too. Below a given directory, hidden directories, build trees, other
// projects and vendored trees are skipped (io/foreign_tree.h); a path named in `paths` is
// always read. Specs come in path order, then file order. KernelSpec::source holds the path as
// given or found.
[[nodiscard]] SpecLoad load_specs(const std::vector<std::string>& paths);

}  // namespace kev
