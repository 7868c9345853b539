#include "cli/template_dir.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "io/file_read.h"

namespace kev::cli {
namespace fs = std::filesystem;

namespace {

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// The text of the first non-empty comment line ("// text", "/* text", or " * text" inside a
// block comment); empty when the file does not start with a comment.
std::string first_comment_line(const fs::path& file) {
  const auto content = read_regular_file(file, kMaxSourceBytes);
  if (!content) return "";
  std::istringstream in(*content);
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    std::string text;
    if (in_block) {
      text = line.substr(start);
    } else if (line.compare(start, 2, "//") == 0) {
      text = line.substr(start + 2);
    } else if (line.compare(start, 2, "/*") == 0) {
      text = line.substr(start + 2);
      in_block = true;
    } else {
      return "";
    }
    if (const auto end = text.find("*/"); in_block && end != std::string::npos) {
      text.resize(end);
      in_block = false;
    }
    const auto first = text.find_first_not_of(" \t*");
    if (first == std::string::npos) continue;
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
  }
  return "";
}

}  // namespace

Result<fs::path> find_template_dir() {
  if (const char* env = std::getenv("KERNELEVO_TEMPLATES_DIR"); env != nullptr && *env != '\0') {
    if (!is_dir(env))
      return make_error(std::string("KERNELEVO_TEMPLATES_DIR=") + env + " is not a directory", {},
                        ExitCode::environment);
    return fs::path(env);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        (exe.parent_path() / KERNELEVO_TEMPLATES_FROM_BINDIR).lexically_normal();
    if (is_dir(installed)) return installed;
  }
  if (is_dir(KERNELEVO_SOURCE_TEMPLATES_DIR)) return fs::path(KERNELEVO_SOURCE_TEMPLATES_DIR);
  return make_error(
      std::string("no kernel templates found: set KERNELEVO_TEMPLATES_DIR (looked in ") +
          (ec ? "" : (exe.parent_path() / KERNELEVO_TEMPLATES_FROM_BINDIR).string() + " and ") +
          KERNELEVO_SOURCE_TEMPLATES_DIR + ")",
      {}, ExitCode::environment);
}

std::vector<TemplateInfo> list_templates(const fs::path& dir) {
  std::vector<TemplateInfo> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".cu" || !entry.is_regular_file(ec)) continue;
    out.push_back({entry.path().stem().string(), first_comment_line(entry.path()), entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace kev::cli
