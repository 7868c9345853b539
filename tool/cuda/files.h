#pragma once
// Reading a whole file, for the compilers and the compile cache (atomic writes: io/atomic_file.h).
#include <optional>
#include <string>

namespace kev::cuda {

[[nodiscard]] std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace kev::cuda
