#pragma once
// A fresh directory under the system temp directory, named after the running test and unique
// (mkdtemp), removed at the end of the test: tests never share a fixed path, so two runs of
// the suite on one machine (a CI job beside a developer's) cannot trip over each other.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

namespace kev::test_support {

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = info ? std::string(info->test_suite_name()) + "-" + info->name() : "none";
    for (char& c : test)  // parameterised tests' names hold '/'
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
    std::string name = "kernelevo-test-" + test + "-XXXXXX";
    std::string tmpl = (std::filesystem::temp_directory_path() / name).string();
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : std::string{};
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed for " << tmpl;
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

}  // namespace kev::test_support
