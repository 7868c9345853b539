#pragma once
// Reading a whole file, for the compilers and the compile cache (atomic writes: io/atomic_file.h),
// and where a path lies.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "io/file_read.h"

namespace kev::cuda {

// nullopt for anything but a regular file of at most `max_bytes` (io/file_read.h).
[[nodiscard]] std::optional<std::string> read_whole_file(const std::string& path,
                                                         std::size_t max_bytes = kMaxSourceBytes);

// Whether `path` is `dir` or lies below it, comparing the paths as written (no file system
// access: normalise or canonicalise both first). An empty `dir` holds nothing.
[[nodiscard]] bool is_under(const std::filesystem::path& path, const std::filesystem::path& dir);

}  // namespace kev::cuda
