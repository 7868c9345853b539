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

// A marked source: the spec block, the signature and the code around the kernel are what a
// variant must keep.
std::string marked(const std::string& before, const std::string& body,
                   const std::string& after = "// host code\n") {
  return before +
         "// clang-format off\n/* @kernelevo\nid: k\nkernel: k\nparams:\n  B: [1, 2]\n"
         "problems:\n  - {n: 4}\nargs:\n  - {name: y, type: \"float*\", count: \"n\", output: "
         "true}\n  - {name: n, type: int, value: n}\nlaunch: {grid: [1], block: [B]}\n*/\n"
         "// clang-format on\n__global__ void k(float* y, int n) " +
         body + "\n" + after;
}

const std::string kOriginal = marked("#include \"kernels.h\"\n", "{}");
const std::string kVariant = marked("#include \"kernels.h\"\n", "{ /* faster */ }");

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
    return {root_ / "src/k.cu", root_ / "kernelevo.lock.json", "src/k.cu", strict, {}};
  }
  std::string test_support_read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
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
                         "\"\n#include \"" + (root_ / "src/kernels.h").string() + "\"\n" +
                         kVariant.substr(kVariant.find('\n') + 1));
  EXPECT_EQ(s->kernel_id, "k");
  EXPECT_EQ(s->variant, root_ / "kernelevo-variants/k.cu");
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_EQ(s->notes[0], "src/k.cu: building kernel k's variant kernelevo-variants/k.cu");
  ASSERT_EQ(s->depends.size(), 1u);
  EXPECT_EQ(s->depends[0], root_ / "kernelevo-variants/k.cu");
}

TEST_F(SourceSelection, OnlyQuotedIncludesOfHeadersBesideTheOriginalAreAnchored) {
  const std::string includes =
      "  #  include \"kernels.h\"  // spaced\n#include <kernels.h>\n#include \"elsewhere.h\"\n"
      "#include \"/abs/x.h\"\n// #include \"kernels.h\" in a comment\n#define include "
      "\"kernels.h\"\n";
  const std::string original = marked(includes, "{}");
  const std::string variant = marked(includes, "{ /* faster */ }");
  write("src/k.cu", original);
  write("kernelevo-variants/k.cu", variant);
  lock_.kernels["k"].variant = {"kernelevo-variants/k.cu", sha256_of(variant), sha256_of(original)};
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->kernel_id, "k") << s->notes[0];
  const std::string header = (root_ / "src/kernels.h").string();
  EXPECT_EQ(s->text, "#line 1 \"" + (root_ / "kernelevo-variants/k.cu").string() + "\"\n" +
                         "  #  include \"" + header +
                         "\"  // spaced\n#include <kernels.h>\n"
                         "#include \"elsewhere.h\"\n#include \"/abs/x.h\"\n"
                         "// #include \"kernels.h\" in a comment\n#define include \"kernels.h\"\n" +
                         variant.substr(includes.size()));
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
  EXPECT_NE(s->notes[0].find("outside the lockfile's kernelevo-variants/"), std::string::npos)
      << s->notes[0];
}

TEST_F(SourceSelection, AVariantsFolderLinkedElsewhereIsRefused) {
  fs::remove_all(root_ / "kernelevo-variants");
  fs::create_directories(root_ / "elsewhere");
  write("elsewhere/k.cu", kVariant);
  fs::create_directory_symlink(root_ / "elsewhere", root_ / "kernelevo-variants");
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("outside the lockfile's kernelevo-variants/"), std::string::npos)
      << s->notes[0];
}

// The lockfile may name any file with its real hash: only a .cu under kernelevo-variants/
// that keeps the original's frozen parts is built.
TEST_F(SourceSelection, AFileOutsideTheVariantsFolderIsNotBuiltWhateverItsHash) {
  for (const std::string file : {"src/kernels.h", "src/k.cu", "kernelevo-variants/k.h",
                                 "kernelevo-variants", "other/kernelevo-variants/k.cu"}) {
    std::error_code ec;
    const std::string text =
        fs::is_regular_file(root_ / file, ec) ? test_support_read(root_ / file) : "";
    lock_.kernels["k"].variant = LockedVariant{file, sha256_of(text), sha256_of(kOriginal)};
    auto s = select_source(&lock_, options());
    ASSERT_TRUE(s.ok()) << file;
    EXPECT_EQ(s->text, include_of_original()) << file;
    ASSERT_EQ(s->notes.size(), 1u) << file;
    EXPECT_EQ(s->notes[0], "src/k.cu: building the original, not kernel k's variant " + file +
                               ": " + file +
                               " is not a .cu file in kernelevo-variants/, where evolve writes "
                               "variants. Run `kernelevo evolve src/k.cu --kernel k` again, or "
                               "remove its \"variant\" from kernelevo.lock.json");
    auto strict = select_source(&lock_, options(/*strict=*/true));
    ASSERT_FALSE(strict.ok()) << file;
    EXPECT_NE(strict.error().message.find("kernelevo.lock.json"), std::string::npos);
  }
}

TEST_F(SourceSelection, AVariantChangingAFrozenPartIsNotBuilt) {
  const std::string spec_changed = [] {
    std::string v = kVariant;
    v.replace(v.find("B: [1, 2]"), 9, "B: [1, 3]");
    return v;
  }();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {spec_changed, "the candidate changes the spec comment block"},
      {marked("#include \"kernels.h\"\n#include \"/etc/passwd\"\n", "{}"),
       "the candidate changes code before the kernel's own region"},
      {marked("#include \"kernels.h\"\n", "{}", "// host code\nint evil() { return 1; }\n"),
       "the candidate changes code after the kernel"},
      {[] {
         std::string v = kVariant;
         v.replace(v.find("float* y, int n"), 15, "float* y, long n");
         return v;
       }(),
       "the candidate changes the signature of kernel `k`"},
      {"#include \"kernels.h\"\nint main() {}\n", "kernel"},
  };
  for (const auto& [variant, why] : cases) {
    write("kernelevo-variants/k.cu", variant);
    lock_.kernels["k"].variant->hash = sha256_of(variant);
    auto s = select_source(&lock_, options());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->text, include_of_original()) << why;
    ASSERT_EQ(s->notes.size(), 1u);
    EXPECT_NE(s->notes[0].find("kernelevo-variants/k.cu is not src/k.cu with kernel k rewritten: "),
              std::string::npos)
        << s->notes[0];
    EXPECT_NE(s->notes[0].find(why), std::string::npos) << s->notes[0];
    EXPECT_FALSE(select_source(&lock_, options(/*strict=*/true)).ok());
  }
}

TEST_F(SourceSelection, AKernelTheOriginalDoesNotMarkIsNotBuilt) {
  lock_.kernels["ghost"] = lock_.kernels["k"];
  lock_.kernels.erase("k");
  auto s = select_source(&lock_, options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->text, include_of_original());
  ASSERT_EQ(s->notes.size(), 1u);
  EXPECT_NE(s->notes[0].find("src/k.cu marks no kernel ghost to check the variant against"),
            std::string::npos)
      << s->notes[0];
  // A kernel a project kernelevo.yaml specifies for the source is checked the same way.
  SelectOptions with_ghost = options();
  with_ghost.kernels["ghost"] = KernelNames{"src/k.cu", "k", ""};
  auto built = select_source(&lock_, with_ghost);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->kernel_id, "ghost");
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
  const std::string other = marked("#include \"kernels.h\"\n", "{ /* other */ }");
  write("kernelevo-variants/j.cu", other);
  LockedKernel& j = lock_.kernels["j"];
  j.source = "src/k.cu";
  j.source_hash = sha256_of(kOriginal);
  j.variant = LockedVariant{"kernelevo-variants/j.cu", sha256_of(other), sha256_of(kOriginal)};
  // j is specified by a project kernelevo.yaml (here for the same function as k).
  SelectOptions with_j = options();
  with_j.kernels["j"] = KernelNames{"src/k.cu", "k", ""};
  auto s = select_source(&lock_, with_j);
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
