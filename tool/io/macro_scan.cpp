#include "io/macro_scan.h"

#include "core/macro_guards.h"
#include "io/file_read.h"

namespace kev {

Result<MacroScan> scan_unguarded_defines(const std::vector<std::filesystem::path>& sources,
                                         const std::set<std::string, std::less<>>& names) {
  namespace fs = std::filesystem;
  MacroScan out;
  std::set<fs::path> seen;
  std::vector<fs::path> pending(sources.rbegin(), sources.rend());
  while (!pending.empty()) {
    std::error_code ec;
    const fs::path file = fs::weakly_canonical(fs::absolute(pending.back(), ec), ec);
    pending.pop_back();
    // A missing or generated-later file is skipped: the compiler reports what it lacks.
    if (!fs::is_regular_file(file, ec) || !seen.insert(file).second) continue;
    if (seen.size() > kMaxScannedFiles)
      return make_error("more than " + std::to_string(kMaxScannedFiles) +
                        " files are included from the target's sources; stopped reading at " +
                        file.string());
    auto text = read_regular_file(file, kMaxSourceBytes);
    if (!text) return text.error();
    out.files.push_back(file);
    for (auto& d : unguarded_defines(*text, names)) out.defines.push_back({file, d.line, d.name});
    const auto includes = quoted_includes(*text);
    for (auto it = includes.rbegin(); it != includes.rend(); ++it) {
      const fs::path header = file.parent_path() / *it;
      pending.push_back(header);
    }
  }
  return out;
}

}  // namespace kev
