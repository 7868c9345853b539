#pragma once
// Space sizes of a spec as `kernelevo scan` reports them: all points, the valid ones over
// every problem at once (what the tuner searches), and per problem where constraints
// mention problem dimensions. Counts too costly to finish are lower bounds (SpaceCount).
#include <vector>

#include "core/space.h"
#include "core/spec.h"

namespace kev {

struct ProblemSpaceSize {
  Problem problem;
  SpaceCount valid;
};

struct SpaceSummary {
  SpaceCount total;  // not exact beyond 2^64 - 1 points
  SpaceCount valid;
  std::vector<ProblemSpaceSize> per_problem;  // empty unless constraints mention problem dims
};

[[nodiscard]] SpaceSummary summarize_space(const KernelSpec& spec);

}  // namespace kev
