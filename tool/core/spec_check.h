#pragma once
// Checks of one parsed spec that need no YAML: an output or inout argument, every name in every
// expression is a parameter or a dimension of every problem and validate shape, parameters read by
// expressions have integer values, and the space has a valid point (overall and per
// problem where constraints mention problem dimensions).
#include <cstdint>
#include <vector>

#include "core/result.h"
#include "core/spec.h"
#include "core/spec_space.h"

namespace kev {

// `names_only`: check expression names only (for a spec that already has other errors).
// Each space is counted within `count_steps` search steps (SpecSpace); one too costly to
// count is taken to be non-empty (the tuner's sampler reports an empty one later).
// A spec none of whose configurations tried can be launched (an argument count, the launch
// geometry or a metric that cannot be evaluated for some problem) is an error too.
[[nodiscard]] std::vector<Error> check_spec(
    const KernelSpec& spec, bool names_only = false,
    std::uint64_t count_steps = SpecSpace::kDefaultCountSteps);

}  // namespace kev
