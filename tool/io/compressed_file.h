#pragma once
// Reads a whole file that may be gzip-compressed (detected by its magic bytes).
#include <string>

#include "core/result.h"

namespace kev::io {

Result<std::string> read_maybe_gzip(const std::string& path);

}  // namespace kev::io
