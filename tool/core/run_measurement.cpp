#include "core/run_measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kev {

namespace {

double geometric_mean(const std::vector<double>& values) {
  if (values.size() == 1) return values.front();  // exactly, not through exp(log(x))
  double sum = 0.0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

}  // namespace

Measurement measurement_from(const RunReport& report) {
  Measurement m;
  m.disposition = report.outcome.disposition;
  m.detail = report.outcome.detail;
  if (!report.outcome.passed()) return m;

  std::vector<const ProblemResult*> timed;
  for (const auto& p : report.problems)
    if (p.timed && !p.samples_us.empty()) timed.push_back(&p);
  if (timed.empty()) {
    m.samples_us = report.outcome.samples_us;
  } else {
    std::size_t count = std::numeric_limits<std::size_t>::max();
    for (const auto* p : timed) count = std::min(count, p->samples_us.size());
    std::vector<double> column(timed.size());
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t k = 0; k < timed.size(); ++k) column[k] = timed[k]->samples_us[i];
      m.samples_us.push_back(geometric_mean(column));
    }
  }

  std::vector<double> fractions;
  for (const auto& p : report.problems)
    if (p.timed && p.copy_fraction && *p.copy_fraction > 0.0) fractions.push_back(*p.copy_fraction);
  if (!fractions.empty()) m.roofline_fraction = geometric_mean(fractions);
  return m;
}

}  // namespace kev
