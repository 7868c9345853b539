// The unified diff written beside a winning variant must apply with `patch`.
#include "core/unified_diff.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"

namespace kev {
namespace {

TEST(UnifiedDiff, EqualTextsGiveNothing) {
  EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
}

TEST(UnifiedDiff, MatchesDiffUFormat) {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\neleven\n";
  EXPECT_EQ(unified_diff(before, after, "a/k.cu", "b/k.cu"),
            "--- a/k.cu\n+++ b/k.cu\n"
            "@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+eleven\n");
}

std::string run_diff_u(const std::string& before, const std::string& after) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  { std::ofstream(dir / "a") << before; }
  { std::ofstream(dir / "b") << after; }
  const std::string cmd = "cd " + dir.string() + " && diff -u a b > out; true";
  if (std::system(cmd.c_str()) != 0) return {};
  std::ifstream in(dir / "out");
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  const auto hunks = text.find("@@");
  return hunks == std::string::npos ? std::string() : text.substr(hunks);
}

TEST(UnifiedDiff, AgreesWithDiffU) {
  if (std::system("diff --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no diff tool";
  std::string many;
  for (int i = 1; i <= 40; ++i) many += std::to_string(i) + "\n";
  std::string changed = "0\n" + many;
  changed.replace(changed.find("\n15\n"), 4, "\nfifteen\n");
  changed.replace(changed.find("\n21\n"), 4, "\n");
  changed.replace(changed.find("\n38\n"), 4, "\n38\n38b\n");
  const std::string ours = unified_diff(many, changed, "a", "b");
  ASSERT_EQ(ours.substr(0, 12), "--- a\n+++ b\n");
  EXPECT_EQ(ours.substr(12), run_diff_u(many, changed));
}

TEST(UnifiedDiff, MissingFinalNewlineIsMarked) {
  EXPECT_EQ(
      unified_diff("a\nb", "a\nc", "x", "y"),
      "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline "
      "at end of file\n");
}

TEST(UnifiedDiff, PatchAppliesIt) {
  if (std::system("patch --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no patch tool";
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  std::filesystem::create_directories(dir / "src");
  std::string before;
  for (int i = 0; i < 60; ++i) before += "line " + std::to_string(i) + "\n";
  std::string after = before;
  after.replace(after.find("line 3\n"), 7, "new three\nextra\n");
  after.replace(after.find("line 40\n"), 8, "");
  after += "tail\n";
  { std::ofstream(dir / "src/k.cu") << before; }
  { std::ofstream(dir / "k.diff") << unified_diff(before, after, "a/src/k.cu", "b/src/k.cu"); }
  const std::string cmd = "cd " + dir.string() + " && patch -s -p1 < k.diff";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "src/k.cu");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), after);
}

}  // namespace
}  // namespace kev
