#include "core/gate_rounds.h"

#include "core/stats.h"

namespace kev {

void measure_round(Measurer& measurer, const MeasureTarget& target, RoundSamples& into) {
  if (into.failure) return;
  Measurement m = measurer.measure(target);
  if (m.disposition != Disposition::passed || m.samples_us.empty()) {
    if (m.disposition == Disposition::passed) {
      m.disposition = Disposition::invalid;
      m.detail = "the measurement returned no samples";
    }
    into.failure = std::move(m);
    return;
  }
  into.medians_us.push_back(stats::median(m.samples_us));
  if (m.roofline_fraction) into.roofline_fractions.push_back(*m.roofline_fraction);
}

}  // namespace kev
