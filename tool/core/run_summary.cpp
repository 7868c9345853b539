#include "core/run_summary.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace kev {

void apply_bandwidth(ProblemResult& out, const std::optional<std::int64_t>& bytes,
                     const DeviceInfo& info, double ceiling_margin) {
  if (bytes && out.time_us && *out.time_us > 0.0) {
    const double gbps = static_cast<double>(*bytes) / (*out.time_us * 1e-6) / 1e9;
    out.gbps = gbps;
    if (info.copy_gbps > 0.0) out.copy_fraction = gbps / info.copy_gbps;
    const double ceiling = std::max(info.copy_gbps, info.read_gbps);
    if (ceiling > 0.0 && gbps > ceiling * ceiling_margin) {
      std::ostringstream os;
      os.precision(4);
      os << "suspicious: " << gbps << " GB/s from metrics.bytes is above the device's measured "
         << "ceiling " << ceiling << " GB/s (margin " << ceiling_margin
         << "): the time or the byte count is wrong";
      out.disposition = Disposition::invalid;
      out.detail = os.str();
    }
  }
}

void summarize_passed(RunReport& report) {
  std::vector<double> logs, lows, highs;
  for (const auto& pr : report.problems) {
    if (pr.disposition == Disposition::passed && pr.time_us) {
      logs.push_back(std::log(*pr.time_us));
      lows.push_back(std::log(pr.ci_low_us.value_or(*pr.time_us)));
      highs.push_back(std::log(pr.ci_high_us.value_or(*pr.time_us)));
    }
  }
  report.outcome.disposition = Disposition::passed;
  if (!logs.empty()) {
    auto geo = [](const std::vector<double>& v) {
      double s = 0.0;
      for (double x : v) s += x;
      return std::exp(s / static_cast<double>(v.size()));
    };
    report.outcome.time_us = geo(logs);
    report.outcome.ci_low_us = geo(lows);
    report.outcome.ci_high_us = geo(highs);
    if (report.problems.size() >= 1 && report.problems.front().timed && logs.size() == 1)
      report.outcome.samples_us = report.problems.front().samples_us;
    bool early = false;
    for (const auto& pr : report.problems) early = early || pr.stopped_early;
    if (early) report.outcome.detail = "timing stopped early: clearly slower than the best so far";
  }
}

std::string failed_shape_detail(const ProblemResult& shape) {
  const std::string lead = "problem " + shape.problem;
  const std::string& d = shape.detail;
  if (d.compare(0, lead.size(), lead) == 0 &&
      (d.size() == lead.size() || d[lead.size()] == ',' || d[lead.size()] == ':'))
    return d;
  return lead + ": " + shape.detail;
}

}  // namespace kev
