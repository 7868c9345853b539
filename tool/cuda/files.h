#pragma once
// Reading a whole file, for the compilers and the compile cache (atomic writes: io/atomic_file.h),
// and where a path lies.
#include <filesystem>
#include <optional>
#include <string>

namespace kev::cuda {

[[nodiscard]] std::optional<std::string> read_whole_file(const std::string& path);

// Whether `path` is `dir` or lies below it, comparing the paths as written (no file system
// access: normalise or canonicalise both first). An empty `dir` holds nothing.
[[nodiscard]] bool is_under(const std::filesystem::path& path, const std::filesystem::path& dir);

}  // namespace kev::cuda
