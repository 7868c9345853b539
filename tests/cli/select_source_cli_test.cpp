// `kernelevo select-source` (run by the build) on lockfiles that name files other than an
// evolved variant: the lockfile is untrusted, the original on disk is not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "io/hash.h"
#include "support/cli_run.h"

namespace {

namespace fs = std::filesystem;
using kev::test_support::read_text;
using kev::test_support::write_text;

class SelectSourceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kev-select-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "src");
    fs::create_directories(dir_ / "kernelevo-variants");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A lockfile recording `file` (with its real sha256) as `id`'s variant of `source`.
  void record_variant(const std::string& id, const std::string& source, const std::string& file) {
    const std::string original_hash = kev::sha256_of(read_text(dir_ / source));
    const nlohmann::json lock = {{"schema_version", 2},
                                 {"kernels",
                                  {{id,
                                    {{"source", source},
                                     {"source_hash", original_hash},
                                     {"variant",
                                      {{"file", file},
                                       {"hash", kev::sha256_of(read_text(dir_ / file))},
                                       {"base_source_hash", original_hash}}},
                                     {"targets", nlohmann::json::object()}}}}}};
    write_text(dir_ / "kernelevo.lock.json", lock.dump(2));
  }
  kev::test_support::CommandRun select(const std::string& source, const std::string& extra = "") {
    return kev::test_support::run_kernelevo(
        "select-source --source " + source + " --out out.cu " + extra, dir_);
  }
  std::string include_of(const std::string& source) const {
    return "#include \"" + (dir_ / source).string() + "\"\n";
  }

  fs::path dir_;
};

TEST_F(SelectSourceCli, ALockfileNamingAHeaderWithItsRealHashBuildsTheOriginal) {
  fs::copy_file(std::string(KERNELEVO_SOURCE_DIR) + "/templates/softmax.cu",
                dir_ / "src/softmax.cu");
  write_text(dir_ / "src/kernels.h", "#pragma once\nstatic int injected = 1;\n");
  record_variant("softmax_rows", "src/softmax.cu", "src/kernels.h");
  const std::string why =
      "kernelevo: src/softmax.cu: building the original, not kernel softmax_rows's variant "
      "src/kernels.h: src/kernels.h is not a .cu file in kernelevo-variants/, where evolve "
      "writes variants. Run `kernelevo evolve src/softmax.cu --kernel softmax_rows` again, or "
      "remove its \"variant\" from kernelevo.lock.json\n";
  const auto run = select("src/softmax.cu");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, why);
  EXPECT_EQ(read_text(dir_ / "out.cu"), include_of("src/softmax.cu"));
  const auto strict = select("src/softmax.cu", "--strict");
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  EXPECT_NE(strict.err.find("error: " + why.substr(11)), std::string::npos) << strict.err;
}

TEST_F(SelectSourceCli, AVariantAddingCodeAfterTheKernelIsNotBuilt) {
  const std::string original =
      read_text(std::string(KERNELEVO_SOURCE_DIR) + "/templates/softmax.cu");
  write_text(dir_ / "src/softmax.cu", original);
  write_text(dir_ / "kernelevo-variants/softmax_rows.cu",
             original + "\nextern \"C\" int run_at_load() { return 0; }\n");
  record_variant("softmax_rows", "src/softmax.cu", "kernelevo-variants/softmax_rows.cu");
  const auto run = select("src/softmax.cu");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("kernelevo-variants/softmax_rows.cu is not src/softmax.cu with kernel "
                         "softmax_rows rewritten: the candidate changes code after the kernel"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(read_text(dir_ / "out.cu"), include_of("src/softmax.cu"));
}

TEST_F(SelectSourceCli, AKernelOfAProjectFileIsCheckedAgainstItsSpec) {
  const std::string project = std::string(KERNELEVO_FIXTURES) + "/specs/project";
  fs::copy_file(project + "/kernelevo.yaml", dir_ / "kernelevo.yaml");
  fs::copy_file(project + "/src/scale.cu", dir_ / "src/scale.cu");
  std::string variant = read_text(dir_ / "src/scale.cu");
  variant.replace(variant.find("alpha * x[i + k]"), 16, "x[i + k] * alpha");
  write_text(dir_ / "kernelevo-variants/scale_f32.cu", variant);
  record_variant("scale_f32", "src/scale.cu", "kernelevo-variants/scale_f32.cu");

  const auto built = select("src/scale.cu", "--spec kernelevo.yaml");
  EXPECT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.err,
            "kernelevo: src/scale.cu: building kernel scale_f32's variant "
            "kernelevo-variants/scale_f32.cu\n");
  EXPECT_NE(read_text(dir_ / "out.cu").find("x[i + k] * alpha"), std::string::npos);

  // Without the project file nothing says where the kernel is: the original is built.
  const auto unmarked = select("src/scale.cu");
  EXPECT_EQ(unmarked.exit_code, 0) << unmarked.err;
  EXPECT_NE(unmarked.err.find("src/scale.cu marks no kernel scale_f32"), std::string::npos)
      << unmarked.err;
  EXPECT_EQ(read_text(dir_ / "out.cu"), include_of("src/scale.cu"));

  // A variant that changes the includes before the kernel is refused.
  write_text(dir_ / "kernelevo-variants/scale_f32.cu", "#include \"/etc/hostname\"\n" + variant);
  record_variant("scale_f32", "src/scale.cu", "kernelevo-variants/scale_f32.cu");
  const auto refused = select("src/scale.cu", "--spec kernelevo.yaml");
  EXPECT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_NE(refused.err.find("the candidate changes code before the kernel's own region"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(read_text(dir_ / "out.cu"), include_of("src/scale.cu"));
}

}  // namespace
