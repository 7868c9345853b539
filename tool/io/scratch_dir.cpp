#include "io/scratch_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace kev::io {

ScratchDir::ScratchDir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/";
  tmpl.append(prefix).append("-XXXXXX");
  if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace kev::io
