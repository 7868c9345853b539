#pragma once
// Reads a whole file that may be gzip-compressed (detected by its magic bytes), through the
// bounded reader (io/file_read.h): a regular file only, at most `max_bytes` as stored and at
// most `max_bytes` once decompressed, so a gzip bomb is an error, not an exhausted memory.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"
#include "io/file_read.h"

namespace kev::io {

[[nodiscard]] Result<std::string> read_maybe_gzip(const std::string& path,
                                                  std::size_t max_bytes = kMaxRecordingBytes);

// The decompressed bytes of gzip data (members one after another, as `cat a.gz b.gz` makes);
// `path` names the file in errors. Data cut short yields what it holds.
[[nodiscard]] Result<std::string> gunzip(std::string_view data, std::size_t max_bytes,
                                         const std::string& path);

}  // namespace kev::io
