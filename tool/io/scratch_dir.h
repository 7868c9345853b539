#pragma once
// A private temporary directory for one job (a compile): made by mkdtemp (mode 0700) under
// $TMPDIR, else /tmp, and removed with everything in it when the object goes out of scope.
#include <string>
#include <string_view>

namespace kev::io {

class ScratchDir {
 public:
  // "<TMPDIR>/<prefix>-XXXXXX"; path() is empty when it could not be made.
  explicit ScratchDir(std::string_view prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace kev::io
