#pragma once
// `kernelevo tune --replay FILE`: tunes a recorded space (no spec, no GPU).
#include "cli/tune_options.h"

namespace kev::cli {

int tune_replay(const TuneOptions& options);

}  // namespace kev::cli
