#include "cuda/files.h"

#include <fstream>
#include <sstream>

namespace kev::cuda {

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return content.str();
}

bool is_under(const std::filesystem::path& path, const std::filesystem::path& dir) {
  if (dir.empty()) return false;
  const auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace kev::cuda
