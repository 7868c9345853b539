#pragma once
// Small file helpers for the compilers and the compile cache.
#include <optional>
#include <string>

namespace kev::cuda {

[[nodiscard]] std::optional<std::string> read_whole_file(const std::string& path);
// Writes to a temporary file in the same directory, then renames it over `path`, so a
// reader sees the old content or the new, never a torn file. False on any failure.
[[nodiscard]] bool write_file_atomically(const std::string& path, const std::string& content);

}  // namespace kev::cuda
