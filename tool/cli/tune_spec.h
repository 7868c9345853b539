#pragma once
// `kernelevo tune PATH...` on real kernels (specs, GPU evaluation); the replay path is in
// cmd_tune.cpp. Returns the process exit code.
#include "cli/tune_options.h"

namespace kev::cli {

int tune_specs(const TuneOptions& options);

}  // namespace kev::cli
