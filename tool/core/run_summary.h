#pragma once
// From a run's timed shapes to its outcome, without a GPU: bandwidth against the device's
// measured ceilings (a time or byte count that beats them is rejected), and the geometric
// mean over shapes (cuda/driver_runner.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "core/device.h"
#include "core/runner.h"

namespace kev {

// Sets `out`'s gbps and copy_fraction from metrics.bytes (`bytes`) and its time; marks it
// invalid when above the faster ceiling times `ceiling_margin`.
void apply_bandwidth(ProblemResult& out, const std::optional<std::int64_t>& bytes,
                     const DeviceInfo& info, double ceiling_margin);

// The outcome of a run whose shapes all passed: passed, with the geometric mean of their
// times and interval bounds, the samples where one timed shape is all, and a note when
// timing stopped early.
void summarize_passed(RunReport& report);

// The outcome's text for a shape that failed: its detail, led by the problem unless the
// detail already names it ("problem M=4, verification round 1: ...").
[[nodiscard]] std::string failed_shape_detail(const ProblemResult& shape);

}  // namespace kev
