#include "io/foreign_tree.h"

#include <array>
#include <cctype>
#include <string>

#include "io/file_read.h"

namespace kev {

namespace {

namespace fs = std::filesystem;

// A project's CMakeLists.txt is far smaller; a larger one is not read.
constexpr std::size_t kMaxCMakeListsBytes = 1u << 20;

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool vendored_name(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"third_party", "3rdparty", "external",
                                                             "extern",      "vendor",   "_deps"};
  for (const auto n : kNames)
    if (name == n) return true;
  return name.rfind("build", 0) == 0 || name.rfind("cmake-build", 0) == 0;
}

}  // namespace

bool calls_cmake_project(std::string_view text) {
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    line = line.substr(0, line.find('#'));
    for (std::size_t at = 0; at + 7 <= line.size(); ++at) {
      if (at > 0 && identifier_char(line[at - 1])) continue;
      bool match = true;
      for (std::size_t k = 0; k < 7 && match; ++k)
        match = std::tolower(static_cast<unsigned char>(line[at + k])) == "project"[k];
      if (!match) continue;
      std::size_t next = at + 7;
      while (next < line.size() && (line[next] == ' ' || line[next] == '\t')) ++next;
      if (next < line.size() && line[next] == '(') return true;
    }
    line_start = line_end + 1;
  }
  return false;
}

TreeKind classify_subdirectory(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (!name.empty() && name[0] == '.') return TreeKind::hidden;
  std::error_code ec;
  if (fs::exists(dir / "CMakeCache.txt", ec)) return TreeKind::build;
  if (fs::exists(dir / ".git", ec)) return TreeKind::other_project;
  if (fs::is_regular_file(dir / "CMakeLists.txt", ec)) {
    // One that cannot be read (or is huge) does not make the directory foreign.
    const auto text = read_regular_file(dir / "CMakeLists.txt", kMaxCMakeListsBytes);
    if (text && calls_cmake_project(*text)) return TreeKind::other_project;
  }
  return vendored_name(name) ? TreeKind::vendored : TreeKind::own;
}

}  // namespace kev
