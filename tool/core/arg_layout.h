#pragma once
// A spec's arguments and launch geometry resolved for one problem and one parameter set:
// element counts, byte sizes, scalar values in the kernel's parameter layout, grid and block.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

struct ResolvedArg {
  std::size_t index = 0;              // into KernelSpec::args
  std::int64_t count = 0;             // pointers: elements
  std::size_t bytes = 0;              // pointers: count * element size
  std::vector<unsigned char> scalar;  // scalars: the value as the kernel receives it
};

struct ResolvedLaunch {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned shared_bytes = 0;
};

struct ResolvedProblem {
  std::vector<ResolvedArg> args;  // one per spec argument, in order
  ResolvedLaunch launch;
  std::optional<std::int64_t> bytes;               // metrics.bytes
  std::optional<std::int64_t> flops;               // metrics.flops
  [[nodiscard]] std::size_t buffer_bytes() const;  // all pointer arguments (saturating)
};

// Names resolve to problem dimensions first, then integer parameters.
[[nodiscard]] Result<ResolvedProblem> resolve_problem(const KernelSpec& spec,
                                                      const ParamSet& params,
                                                      const Problem& problem);

}  // namespace kev
