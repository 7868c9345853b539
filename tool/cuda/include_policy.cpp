#include "cuda/include_policy.h"

#include <filesystem>

#include "cuda/toolkit.h"
#include "io/subprocess.h"

namespace kev::cuda {
namespace fs = std::filesystem;

namespace {

std::string canonical_text(const fs::path& p) {
  std::error_code ec;
  const auto c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal().string() : c.string();
}

bool is_under(const std::string& path, const std::string& root) {
  if (root.empty() || path.size() < root.size() || path.compare(0, root.size(), root) != 0)
    return false;
  return path.size() == root.size() || root.back() == '/' || path[root.size()] == '/';
}

}  // namespace

ProjectIncludePolicy::ProjectIncludePolicy(IncludePolicyOptions options)
    : options_(std::move(options)) {
  std::error_code ec;
  const fs::path dir = fs::absolute(options_.source, ec).parent_path();
  const auto top = io::run_process({"git", "-C", dir.string(), "rev-parse", "--show-toplevel"},
                                   io::scrubbed_environment(), 30.0);
  if (top.started && !top.timed_out && top.exit_code == 0) {
    std::string line = top.output.substr(0, top.output.find('\n'));
    root_ = canonical_text(line);
    const auto files = io::run_process(
        {"git", "-C", root_, "ls-files", "-z", "--cached", "--others", "--exclude-standard"},
        io::scrubbed_environment(), 60.0);
    if (files.started && !files.timed_out && files.exit_code == 0) {
      std::size_t start = 0;
      while (start < files.output.size()) {
        auto end = files.output.find('\0', start);
        if (end == std::string::npos) end = files.output.size();
        if (end > start)
          visible_.insert(
              canonical_text(fs::path(root_) / files.output.substr(start, end - start)));
        start = end + 1;
      }
    } else {
      root_.clear();
    }
  }
  for (const auto& f : options_.original_reads) original_.insert(canonical_text(f));
  if (options_.system_roots.empty())
    options_.system_roots = {toolkit_include_dir(), "/usr/include", "/usr/lib/gcc",
                             "/usr/local/include"};
  for (const auto& r : options_.system_roots) system_.push_back(canonical_text(r));
}

std::string ProjectIncludePolicy::check_file(const std::string& path) const {
  const std::string p = canonical_text(path);
  if (original_.count(p) != 0) return {};
  // Project files first: a project kept under /usr/local/include is still a project.
  if (!root_.empty() && is_under(p, root_)) {
    // Hidden files and folders (.env, .git/, .ssh/) hold settings and secrets, not headers,
    // even where .gitignore forgot them.
    for (const auto& part : fs::path(p.substr(root_.size())))
      if (part.string().size() > 1 && part.string().front() == '.' && part != "..")
        return "a hidden file of the project";
    return visible_.count(p) != 0 ? std::string()
                                  : "a file of the project that git ignores or does not know";
  }
  for (const auto& r : system_)
    if (is_under(p, r)) return {};
  return root_.empty() ? "not a header the original reads (no git repository to tell the "
                         "project's files)"
                       : "outside the project and the toolkit";
}

std::string ProjectIncludePolicy::check_include(std::string_view path, bool angled) const {
  std::error_code ec;
  std::vector<fs::path> dirs;
  if (!angled) dirs.push_back(fs::absolute(options_.source, ec).parent_path());
  for (const auto& d : options_.include_dirs) dirs.push_back(fs::absolute(d, ec));
  for (const auto& d : dirs) {
    const fs::path candidate = d / std::string(path);
    if (fs::exists(candidate, ec)) return check_file(candidate.string());
  }
  return {};  // not found there: the compiler looks only in the toolkit and system dirs
}

}  // namespace kev::cuda
