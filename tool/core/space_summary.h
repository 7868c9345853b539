#pragma once
// Space sizes of a spec as `kernelevo scan` reports them: all points, the valid ones over
// every problem at once (what the tuner searches), and per problem where constraints
// mention problem dimensions.
#include <cstdint>
#include <vector>

#include "core/spec.h"

namespace kev {

struct ProblemSpaceSize {
  Problem problem;
  std::uint64_t valid = 0;
};

struct SpaceSummary {
  std::uint64_t total = 0;
  std::uint64_t valid = 0;
  std::vector<ProblemSpaceSize> per_problem;  // empty unless constraints mention problem dims
};

[[nodiscard]] SpaceSummary summarize_space(const KernelSpec& spec);

}  // namespace kev
