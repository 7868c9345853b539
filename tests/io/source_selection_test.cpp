#include "io/source_selection.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/hash.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const std::string kOriginal = "#include \"kernels.h\"\n__global__ void k() {}\n";
const std::string kVariant = "#include \"kernels.h\"\n__global__ void k() { /* faster */ }\n";

class SourceSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("kev-select-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::create_directories(root_ / "kernelevo-variants");
    write("src/k.cu", kOriginal);
    write("src/kernels.h", "#pragma once\n");
    write("kernelevo-variants/k.cu", kVariant);
    LockedKernel& k = lock_.kernels["k"];
    k.source = "src/k.cu";
    k.source_hash = sha256_of(kOriginal);
    k.variant = LockedVariant{"kernelevo-variants/k.cu", sha256_of(kVariant), sha256_of(kOriginal)};
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel, std::ios::binary) << text;
  }
  SelectOptions options(bool strict = false) const {
    return {root_ / "src/k.cu", root_ / "kernelevo.lock.json", "src/k.cu", strict};
  }
  std::string include_of_original() const {
    return "#include \"" + (root_ / "src/k.cu").string() + "\"\n";
  }

  fs::path root_;
  Lockfile lock_;
};

TEST_F(SourceSelection, ACurrentVariantIsBuiltWithItsFileNamedForDiagnostics) {
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  // Its "kernels.h" is the one beside the original, as for the original.
  EXPECT_EQ(s->text, "#line 1 \"" + (root_ / "kernelevo-variants/k.cu").string() +
                         "\"\n#include \"" + (root_ / "src/kernels.h").string() +
                         "\"\n__global__ void k() { /* faster */ }\n");
  EXPECT_EQ(s->kernel_id, "k");
  EXPECT_EQ(s->variant, root_ / "kernelevo-variants/k.cu");
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_EQ(s->notes[0], "src/k.cu: building kernel k's variant kernelevo-variants/k.cu");
  ASSERT_EQ(s->depends.size(), 1u);
  EXPECT_EQ(s->depends[0], root_ / "kernelevo-variants/k.cu");
}

TEST_F(SourceSelection, OnlyQuotedIncludesOfHeadersBesideTheOriginalAreAnchored) {
  const std::string variant =
      "  #  include \"kernels.h\"  // spaced\n#include <kernels.h>\n#include \"elsewhere.h\"\n"
      "#include \"/abs/x.h\"\n// #include \"kernels.h\" in a comment\n#define include "
      "\"kernels.h\"\n";
  write("kernelevo-variants/k.cu", variant);
  lock_.kernels["k"].variant->hash = sha256_of(variant);
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  const std::string header = (root_ / "src/kernels.h").string();
  EXPECT_EQ(s->text, "#line 1 \"" + (root_ / "kernelevo-variants/k.cu").string() + "\"\n" +
                         "  #  include \"" + header +
                         "\"  // spaced\n#include <kernels.h>\n"
                         "#include \"elsewhere.h\"\n#include \"/abs/x.h\"\n"
                         "// #include \"kernels.h\" in a comment\n#define include \"kernels.h\"\n");
}

TEST_F(SourceSelection, WithoutLockfileOrVariantTheOriginalIsIncludedSilently) {
  auto none = select_source(nullptr, options());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->text, include_of_original());
  EXPECT_TRUE(none->notes.empty());
  lock_.kernels["k"].variant.reset();
  auto plain = select_source(&lock_, options());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->text, include_of_original());
  EXPECT_TRUE(plain->notes.empty());
  EXPECT_TRUE(plain->depends.empty());
}

TEST_F(SourceSelection, AnEditedOriginalFallsBackAndSaysWhy) {
  write("src/k.cu", kOriginal + "// edited\n");
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_EQ(s->notes[0],
            "src/k.cu: building the original, not kernel k's variant kernelevo-variants/k.cu: "
            "src/k.cu changed since the variant was evolved from it. Run `kernelevo evolve "
            "src/k.cu --kernel k` again, or remove its \"variant\" from kernelevo.lock.json");
  // Editing the variant file must still re-run the selection.
  EXPECT_EQ(s->depends, std::vector<fs::path>{root_ / "kernelevo-variants/k.cu"});
}

TEST_F(SourceSelection, AnEditedVariantFallsBack) {
  write("kernelevo-variants/k.cu", kVariant + "// edited by hand\n");
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("kernelevo-variants/k.cu was edited after it was recorded"),
            std::string::npos)
      << s->notes[0];
}

TEST_F(SourceSelection, AMissingVariantFallsBackAndWatchesItsDirectory) {
  fs::remove(root_ / "kernelevo-variants/k.cu");
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("kernelevo-variants/k.cu does not exist"), std::string::npos);
  EXPECT_EQ(s->depends, std::vector<fs::path>{root_ / "kernelevo-variants"});
}

TEST_F(SourceSelection, AVariantWithoutHashesIsNeverBuilt) {
  lock_.kernels["k"].variant = LockedVariant{"kernelevo-variants/k.cu", "", ""};
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("recorded without hashes"), std::string::npos);
}

TEST_F(SourceSelection, AVariantLinkedOutsideTheLockfileDirectoryIsRefused) {
  const fs::path outside = root_.string() + "-outside.cu";
  std::ofstream(outside, std::ios::binary) << kVariant;
  fs::remove(root_ / "kernelevo-variants/k.cu");
  fs::create_symlink(outside, root_ / "kernelevo-variants/k.cu");
  auto s = select_source(&lock_, options());
  fs::remove(outside);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("outside the lockfile's directory"), std::string::npos) << s->notes[0];
}

TEST_F(SourceSelection, StrictMakesAFallbackAnError) {
  write("kernelevo-variants/k.cu", "// something else\n");
  auto s = select_source(&lock_, options(/*strict=*/true));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ExitCode::failure);
  EXPECT_NE(s.error().message.find("building the original, not kernel k's variant"),
            std::string::npos);
}

TEST_F(SourceSelection, OneVariantPerSourceTheFirstByKernelId) {
  const std::string other = "#include \"kernels.h\"\n__global__ void k() { /* other */ }\n";
  write("kernelevo-variants/j.cu", other);
  LockedKernel& j = lock_.kernels["j"];
  j.source = "src/k.cu";
  j.source_hash = sha256_of(kOriginal);
  j.variant = LockedVariant{"kernelevo-variants/j.cu", sha256_of(other), sha256_of(kOriginal)};
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kernel_id, "j");
  ASSERT_EQ(s->notes.size(), 2u);
  EXPECT_EQ(
      s->notes[1],
      "src/k.cu: kernel k's variant kernelevo-variants/k.cu is not built: a source builds one "
      "variant, and kernel j's is built");
}

TEST_F(SourceSelection, KernelsOfOtherSourcesAreIgnored) {
  lock_.kernels["k"].source = "src/other.cu";
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  EXPECT_TRUE(s->notes.empty());
}

TEST(SourceSelectionDepfile, EscapesSpacesAndNamesEachDependency) {
  EXPECT_EQ(depfile_text("/b/select.stamp", {"/p/my variants/k.cu", "/p/x$y.cu"}),
            "/b/select.stamp: \\\n  /p/my\\ variants/k.cu \\\n  /p/x$$y.cu\n");
  EXPECT_EQ(depfile_text("/b/select.stamp", {}), "/b/select.stamp:\n");
}

}  // namespace
}  // namespace kev
