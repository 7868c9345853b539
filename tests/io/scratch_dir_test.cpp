#include "io/scratch_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "support/temp_dir.h"

namespace kev::io {
namespace {

namespace fs = std::filesystem;

// TMPDIR set for one test, then put back.
class TmpdirFor {
 public:
  explicit TmpdirFor(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", value.c_str(), 1);
  }
  ~TmpdirFor() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  TmpdirFor(const TmpdirFor&) = delete;
  TmpdirFor& operator=(const TmpdirFor&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(ScratchDir, IsPrivateUnderTmpdirAndGoesWithWhatItHolds) {
  const test_support::TempDir tmp;
  const TmpdirFor env(tmp.path());
  std::string kept;
  {
    const ScratchDir scratch("kernelevo-test");
    ASSERT_FALSE(scratch.path().empty());
    kept = scratch.path();
    EXPECT_EQ(fs::path(kept).parent_path(), fs::path(tmp.path()));
    EXPECT_EQ(fs::path(kept).filename().string().rfind("kernelevo-test-", 0), 0u) << kept;
    struct stat st {};
    ASSERT_EQ(::stat(kept.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(fs::path(kept) / "nested");
    std::ofstream(fs::path(kept) / "nested" / "file.txt") << "left behind";
    const ScratchDir other("kernelevo-test");
    EXPECT_NE(other.path(), kept);
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(ScratchDir, AnUnusableTmpdirLeavesThePathEmpty) {
  const test_support::TempDir tmp;
  const TmpdirFor env((fs::path(tmp.path()) / "missing").string());
  const ScratchDir scratch("kernelevo-test");
  EXPECT_TRUE(scratch.path().empty());
}

}  // namespace
}  // namespace kev::io
