#pragma once
// Rounds of measurements for the gate: each round's median becomes one sample, so a verdict
// rests on rounds spread over time (drift and throttling show up between rounds) rather than
// on many back-to-back launches that share one state of the GPU.
#include <optional>
#include <string>
#include <vector>

#include "core/measurer.h"

namespace kev {

struct RoundSamples {
  std::vector<double> medians_us;  // one per passed round
  std::vector<double> roofline_fractions;
  std::optional<Measurement> failure;  // the first round that did not pass
};

// Adds one round of `target` to `into` (stops adding once a round failed).
void measure_round(Measurer& measurer, const MeasureTarget& target, RoundSamples& into);

}  // namespace kev
