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
};

// `paths`: .cu files, kernelevo.yaml files, or directories searched recursively for *.cu
// (and headers, where a mark is an error); a kernelevo.yaml directly inside a given
// directory is read too. Hidden directories and build trees (holding CMakeCache.txt) are
// skipped. Specs come in path order, then file order. KernelSpec::source holds the path as
// given or found.
[[nodiscard]] SpecLoad load_specs(const std::vector<std::string>& paths);

}  // namespace kev
