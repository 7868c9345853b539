#pragma once
// `kernelevo tune PATH...` on real kernels (specs, GPU evaluation); the replay path is in
// cmd_tune.cpp. Returns the process exit code; `changes` receives what the run measured of
// each winner it locked (the tune report's old -> new).
#include <vector>

#include "cli/tune_options.h"
#include "core/lock_report.h"

namespace kev::cli {

int tune_specs(const TuneOptions& options, std::vector<RunChange>* changes = nullptr);

}  // namespace kev::cli
