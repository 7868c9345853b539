#include "cuda/include_scan.h"

#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "cuda/files.h"

namespace kev::cuda {
namespace fs = std::filesystem;

namespace {

struct IncludeLine {
  std::string name;
  bool quoted = false;
};

std::optional<IncludeLine> parse_include(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return std::nullopt;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.substr(i, 7) != "include") return std::nullopt;
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string_view::npos) return std::nullopt;
  const char open = line[i];
  if (open != '"' && open != '<') return std::nullopt;
  const char close = open == '"' ? '"' : '>';
  const std::size_t end = line.find(close, i + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return IncludeLine{std::string(line.substr(i + 1, end - i - 1)), open == '"'};
}

// A header as the compiler finds it (`spelled`, through whatever links lie on the way) and
// where it really is (`real`).
struct FoundHeader {
  fs::path spelled;
  fs::path real;
};

std::optional<FoundHeader> resolve(const IncludeLine& inc, const fs::path& including_dir,
                                   const std::vector<std::string>& include_dirs) {
  std::error_code ec;
  const auto found = [&](const fs::path& candidate) {
    return FoundHeader{fs::absolute(candidate, ec).lexically_normal(),
                       fs::weakly_canonical(candidate, ec)};
  };
  if (inc.quoted) {
    const fs::path candidate = including_dir / inc.name;
    if (fs::is_regular_file(candidate, ec)) return found(candidate);
  }
  for (const auto& dir : include_dirs) {
    const fs::path candidate = fs::path(dir) / inc.name;
    if (fs::is_regular_file(candidate, ec)) return found(candidate);
  }
  return std::nullopt;
}

// Toolkit layouts often reach their headers through links (/usr/local/include/x.h ->
// /usr/local/cuda-13.0/include/x.h), so a header is excluded when either its spelled or its
// real path lies under either spelling of the excluded directory.
struct ExcludedDir {
  fs::path spelled;
  fs::path real;

  [[nodiscard]] bool holds(const FoundHeader& h) const {
    return is_under(h.spelled, spelled) || is_under(h.real, spelled) || is_under(h.spelled, real) ||
           is_under(h.real, real);
  }
};

}  // namespace

std::vector<std::string> scan_includes(const std::string& source_text,
                                       const std::string& source_path,
                                       const std::vector<std::string>& include_dirs,
                                       const std::string& excluded_dir) {
  std::error_code ec;
  const ExcludedDir excluded = excluded_dir.empty()
                                   ? ExcludedDir{}
                                   : ExcludedDir{fs::absolute(excluded_dir, ec).lexically_normal(),
                                                 fs::weakly_canonical(excluded_dir, ec)};
  std::set<std::string> found;
  std::vector<std::pair<std::string, fs::path>> pending;  // text, directory of the file
  pending.emplace_back(
      source_text,
      fs::absolute(fs::path(source_path.empty() ? "." : source_path), ec).parent_path());
  while (!pending.empty()) {
    auto [text, dir] = std::move(pending.back());
    pending.pop_back();
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const auto inc = parse_include(line);
      if (!inc) continue;
      const auto header = resolve(*inc, dir, include_dirs);
      if (!header || excluded.holds(*header)) continue;
      if (!found.insert(header->real.string()).second) continue;
      pending.emplace_back(read_whole_file(header->real.string()).value_or(""),
                           header->spelled.parent_path());
    }
  }
  return {found.begin(), found.end()};
}

}  // namespace kev::cuda
