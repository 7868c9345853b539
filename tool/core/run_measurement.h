#pragma once
// How one run of the GPU runner becomes one round of the gate: the disposition and detail
// as the runner reported them, and timing samples whose median is the run's time.
#include "core/measurer.h"
#include "core/runner.h"

namespace kev {

// A passed run with one timed problem gives that problem's samples; with several, the
// geometric mean over problems of the i-th sample of each (as many as the shortest has),
// so the median tracks the runner's geometric-mean time. roofline_fraction is the geometric
// mean of the problems' fractions of the measured copy bandwidth. A run that did not pass
// gives its disposition and the runner's detail, without samples.
[[nodiscard]] Measurement measurement_from(const RunReport& report);

}  // namespace kev
