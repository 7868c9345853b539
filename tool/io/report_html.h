#pragma once
// A self-contained HTML page for a report: tables plus charts drawn as inline SVG (speedup
// per kernel, best time so far against evaluations from traces, position against the
// roofline). No scripts, no external resources: it opens from a CI artifact as is.
#include <string>
#include <vector>

#include "core/report.h"
#include "io/trace.h"

namespace kev::io {

// Best passed time after each evaluation of one trace (NaN until the first pass).
struct Convergence {
  std::string kernel;
  std::vector<double> best_us;
};
[[nodiscard]] Convergence convergence_from_trace(const Trace& trace);

[[nodiscard]] std::string report_html(const Report& report,
                                      const std::vector<Convergence>& traces = {});

}  // namespace kev::io
