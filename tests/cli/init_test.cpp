// `kernelevo init`, run as the built binary: listing, copying, refusing to overwrite, unknown
// names. The listing of a fixture directory is compared with tests/fixtures/golden/.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/cli_run.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtureTemplates = fs::path(KERNELEVO_FIXTURES) / "init_templates";
const fs::path kSourceTemplates = fs::path(KERNELEVO_SOURCE_DIR) / "templates";

using test_support::quoted;
using test_support::read_text;
using test_support::write_text;
using InitRun = test_support::CommandRun;

class Init : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kernelevo_init_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `kernelevo init ARGS` in the scratch directory; `templates` sets
  // KERNELEVO_TEMPLATES_DIR, empty unsets it.
  InitRun init(const std::string& args, const std::string& templates = "") const {
    const std::string env = templates.empty() ? "env -u KERNELEVO_TEMPLATES_DIR"
                                              : "env KERNELEVO_TEMPLATES_DIR=" + quoted(templates);
    return test_support::run_kernelevo("init " + args, dir_, env);
  }

  fs::path dir_;
};

TEST_F(Init, ListsTemplatesWithTheirFirstCommentLine) {
  const InitRun run = init("--list", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, read_text(fs::path(KERNELEVO_FIXTURES) / "golden" / "init_list.txt"));
  EXPECT_EQ(run.err, "kernelevo: templates in " + kFixtureTemplates.string() + "\n");
}

TEST_F(Init, FindsTheSourceTreeTemplatesFromABuildTree) {
  const InitRun run = init("--list");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("softmax  "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nrmsnorm"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Row softmax, fp32"), std::string::npos) << run.out;
  EXPECT_EQ(run.err, "kernelevo: templates in " + kSourceTemplates.string() + "\n");
}

TEST_F(Init, CopiesIntoTheCurrentDirectory) {
  const InitRun run = init("--template softmax");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "created softmax.cu (template softmax)\n");
  EXPECT_EQ(read_text(dir_ / "softmax.cu"), read_text(kSourceTemplates / "softmax.cu"));
}

TEST_F(Init, CopiesIntoADirectoryOrToAFilePath) {
  fs::create_directories(dir_ / "src");
  InitRun run = init("--template scale src", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "created src/scale.cu (template scale)\n");
  EXPECT_EQ(read_text(dir_ / "src" / "scale.cu"), read_text(kFixtureTemplates / "scale.cu"));

  run = init("--template scale kernels/", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "kernels" / "scale.cu"));

  run = init("--template add_one lib/my_add.cu", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "created lib/my_add.cu (template add_one)\n");
  EXPECT_EQ(read_text(dir_ / "lib" / "my_add.cu"), read_text(kFixtureTemplates / "add_one.cu"));
}

TEST_F(Init, NeverOverwritesAnExistingFileWithoutForce) {
  write_text(dir_ / "scale.cu", "my own kernel\n");
  InitRun run = init("--template scale", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "kernelevo: error: scale.cu already exists; pass --force to overwrite it\n");
  EXPECT_EQ(read_text(dir_ / "scale.cu"), "my own kernel\n");

  run = init("--template scale --force", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_text(dir_ / "scale.cu"), read_text(kFixtureTemplates / "scale.cu"));
}

TEST_F(Init, UnknownNameExitsTwoListingTheValidNames) {
  const InitRun run = init("--template gemm", kFixtureTemplates.string());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "kernelevo: error: unknown template 'gemm'; available: add_one, no_comment, scale\n");
  EXPECT_FALSE(fs::exists(dir_ / "gemm.cu"));
}

TEST_F(Init, NeedsATemplateOrList) {
  EXPECT_EQ(init("").exit_code, 2);
  EXPECT_EQ(init("--list --template softmax").exit_code, 2);
}

TEST_F(Init, ABadTemplatesDirectoryIsAnEnvironmentError) {
  const InitRun run = init("--list", (dir_ / "missing").string());
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("KERNELEVO_TEMPLATES_DIR="), std::string::npos) << run.err;
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

class InitDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kernelevo_init_dispatch_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  InitRun run(const std::string& args) const {
    return test_support::run_kernelevo(args, dir_, "env -u KERNELEVO_TEMPLATES_DIR");
  }
  fs::path dir_;
};

// `--dispatch DIM`: the copy's spec gains the one dispatch line (a bucket per listed size),
// the template and a plain copy stay as they are, and scan accepts the copy.
TEST_F(InitDispatch, AddsPerProblemBucketsToTheCopyOnly) {
  const std::string original = read_text(kSourceTemplates / "layernorm_bf16.cu");
  InitRun r = run("init --template layernorm_bf16 --dispatch cols src/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "created src/layernorm_bf16.cu (template layernorm_bf16, one winner per problem's "
            "cols: call it through kernelevo::dispatch, docs/build-integration.md)\n");
  const std::string copy = read_text(dir_ / "src" / "layernorm_bf16.cu");
  const std::string line = "dispatch: {by: [cols], buckets: per_problem}\n";
  const std::size_t at = copy.find(line);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(copy.substr(0, at) + copy.substr(at + line.size()), original);
  EXPECT_EQ(read_text(kSourceTemplates / "layernorm_bf16.cu"), original);

  r = run("scan src/layernorm_bf16.cu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("layernorm_rows_bf16"), std::string::npos) << r.out;

  r = run("init --template layernorm_bf16 plain/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir_ / "plain" / "layernorm_bf16.cu"), original);
}

TEST_F(InitDispatch, ADimensionTheProblemsLackWritesNothing) {
  const InitRun r = run("init --template sum --dispatch cols");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kernelevo: error: cannot dispatch kernel 'sum_reduce' by cols: dispatch.by: 'cols' "
            "is not a dimension of every problem (n)\n");
  EXPECT_FALSE(fs::exists(dir_ / "sum.cu"));
  EXPECT_EQ(run("init --list --dispatch cols").exit_code, 2);
}

}  // namespace
}  // namespace kev
