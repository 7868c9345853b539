#include "cuda/files.h"

namespace kev::cuda {

std::optional<std::string> read_whole_file(const std::string& path, std::size_t max_bytes) {
  auto text = read_regular_file(path, max_bytes);
  if (!text) return std::nullopt;
  return std::move(*text);
}

bool is_under(const std::filesystem::path& path, const std::filesystem::path& dir) {
  if (dir.empty()) return false;
  const auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace kev::cuda
