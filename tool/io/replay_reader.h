#pragma once
// Loads a recorded space for replay: a Kernel Tuner cachefile, a T4 results file or a
// kernelevo trace, plain or gzip-compressed; the format is detected from the content.
#include <string>

#include "core/recording.h"
#include "core/result.h"

namespace kev::io {

Result<Recording> read_recording(const std::string& path);
// The same, from text already in memory (`path` only names it in errors).
Result<Recording> parse_recording(const std::string& text, const std::string& path);

}  // namespace kev::io
