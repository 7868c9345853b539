#pragma once
// --timeout of tune, check and compare: how long one evaluation may run on the GPU, its
// reference kernel's runs on every input set included (TimingOptions::timeout_seconds).
#include <string>

#include "core/result.h"

namespace kev::cli {

// `text` as seconds, from 1 s to 1 h (90s, 5m, 1h); 0 when empty: the runner's default, 20 s.
[[nodiscard]] Result<double> evaluation_timeout(const std::string& text);

// The option's help text, one for the three commands.
inline constexpr const char* kTimeoutHelp =
    "Longest one evaluation may run, its reference kernel's runs included (default 20s): "
    "raise it for shapes whose reference is slow, e.g. 2m";

}  // namespace kev::cli
