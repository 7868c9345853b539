#include "cli/build_depfile.h"

#include "io/header_gen.h"
#include "io/source_selection.h"

namespace kev::cli {

Status write_build_depfile(const std::string& depfile, const std::string& target,
                           std::vector<std::filesystem::path> depends,
                           const std::filesystem::path& lockfile,
                           const std::vector<std::filesystem::path>& optional) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> maybe{lockfile};
  maybe.insert(maybe.end(), optional.begin(), optional.end());
  for (const auto& file : maybe) {
    const fs::path path = fs::absolute(file, ec);
    if (fs::exists(path, ec)) {
      depends.push_back(path);
      continue;
    }
    fs::path dir = path.parent_path();
    while (!dir.empty() && !fs::is_directory(dir, ec) && dir != dir.parent_path())
      dir = dir.parent_path();
    depends.push_back(dir);
  }
  auto written = write_if_changed(depfile, depfile_text(fs::absolute(target, ec), depends));
  if (!written) return written.error();
  return ok_status();
}

}  // namespace kev::cli
