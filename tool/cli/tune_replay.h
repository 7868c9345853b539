#pragma once
// `kernelevo tune --replay FILE`: tunes a recorded space (no spec, no GPU).
#include <optional>

#include "cli/tune_options.h"
#include "core/report.h"

namespace kev::cli {

// Returns the process exit code. Once the search has run, `report` (when given) receives
// the run as a tune report: the recorded kernel with its winner, or FAILED without one.
int tune_replay(const TuneOptions& options, std::optional<Report>* report = nullptr);

}  // namespace kev::cli
