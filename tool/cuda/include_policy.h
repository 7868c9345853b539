#pragma once
// Which files model-written source may make the compiler read (core/source_safety.h's
// IncludePolicy, on the real file system): the toolkit's and the system's headers, the
// files the original itself reads, and the project's files that git does not ignore. A
// `.env`, a key file or a build output beside the source is none of these.
#include <set>
#include <string>
#include <vector>

#include "core/source_safety.h"

namespace kev::cuda {

struct IncludePolicyOptions {
  std::string source;                     // the original marked source
  std::vector<std::string> include_dirs;  // the spec's, searched after the source's directory
  // Files the original's own compile reads (NvccCompiler::list_dependencies): allowed.
  std::vector<std::string> original_reads;
  // Headers anyone may read: empty gives the toolkit's include directory and /usr/include,
  // /usr/lib/gcc, /usr/local/include.
  std::vector<std::string> system_roots;
};

class ProjectIncludePolicy final : public IncludePolicy {
 public:
  // Asks git (`rev-parse --show-toplevel`, `ls-files --cached --others --exclude-standard`)
  // once, in the scrubbed environment. Without git or a repository, the project has no files
  // to offer: only the original's reads and the system roots are allowed.
  explicit ProjectIncludePolicy(IncludePolicyOptions options);

  [[nodiscard]] std::string check_include(std::string_view path, bool angled) const override;
  [[nodiscard]] std::string check_file(const std::string& path) const override;

  [[nodiscard]] const std::string& project_root() const { return root_; }

 private:
  IncludePolicyOptions options_;
  std::string root_;                 // canonical; empty without a repository
  std::set<std::string> visible_;    // canonical paths of the files git shows
  std::set<std::string> original_;   // canonical
  std::vector<std::string> system_;  // canonical
};

}  // namespace kev::cuda
