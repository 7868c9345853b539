#pragma once
// Shared helpers of the compile-only tests: temporary directories and small sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kev::cuda::testing {

// A fresh directory under the system temp directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        std::string("kernelevo-test-") + info->test_suite_name() + "-" + info->name() + "-XXXXXX";
    std::string tmpl = (std::filesystem::temp_directory_path() / name).string();
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : std::string{};
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::string write(const std::string& name, const std::string& content) const {
    const auto p = std::filesystem::path(file(name));
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }

 private:
  std::string path_;
};

inline std::string fixture(const std::string& relative) {
  return std::string(KERNELEVO_FIXTURES) + "/" + relative;
}
inline std::string source_dir_file(const std::string& relative) {
  return std::string(KERNELEVO_SOURCE_DIR) + "/" + relative;
}

}  // namespace kev::cuda::testing
