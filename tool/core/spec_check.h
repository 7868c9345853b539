#pragma once
// Checks of one parsed spec that need no YAML: an output or inout argument, every name in every expression is a
// parameter or a dimension of every problem and validate shape, parameters read by
// expressions have integer values, and the space has a valid point (overall and per
// problem where constraints mention problem dimensions).
#include <cstdint>
#include <vector>

#include "core/result.h"
#include "core/spec.h"

namespace kev {

// `names_only`: check expression names only (for a spec that already has other errors).
// Spaces of more than `max_points_checked` points are not searched for a valid point (the
// tuner's sampler reports an empty one later); counting them would stall every scan.
[[nodiscard]] std::vector<Error> check_spec(const KernelSpec& spec, bool names_only = false,
                                            std::uint64_t max_points_checked = 50'000'000);

}  // namespace kev
