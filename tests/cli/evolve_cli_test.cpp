// `kernelevo evolve` as users run it: --dry-run prints the prompts and sends nothing (no
// GPU, no endpoint needed); without an endpoint it is a usage error; the key never shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_run.h"

namespace {

struct CliRun {
  int rc = -1;
  std::string out;
};

// stdout then stderr in `out`.
CliRun run_cli(const std::string& env_and_args) {
  const auto run = kev::test_support::run_in(std::filesystem::current_path(), env_and_args);
  return {run.exit_code, run.out + run.err};
}

const std::string kFixture = std::string(KERNELEVO_FIXTURES) + "/evolve/saxpy.cu";
const std::string kBinary = KERNELEVO_BINARY;

TEST(EvolveCli, DryRunPrintsBothPromptsAndSendsNothing) {
  // An endpoint that refuses connections: any request would fail with exit code 3.
  const CliRun r = run_cli(
      "env KERNELEVO_LLM_URL=http://127.0.0.1:1/v1 KERNELEVO_LLM_MODEL=m "
      "KERNELEVO_LLM_API_KEY=sk-cli-SECRET-42 " +
      kBinary + " evolve " + kFixture + " --dry-run --candidates 3");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("=== saxpy: generation 1, ideas prompt: user ==="), std::string::npos);
  EXPECT_NE(r.out.find("=== saxpy: generation 1, implementation prompt: user ==="),
            std::string::npos);
  EXPECT_NE(r.out.find("Propose 3 distinct ideas"), std::string::npos);
  EXPECT_NE(r.out.find("SAXPY_BLOCK: [128, 256, 512]"), std::string::npos);         // the spec
  EXPECT_NE(r.out.find("extern \"C\" __global__ void saxpy("), std::string::npos);  // the source
  EXPECT_NE(r.out.find("dry run: nothing was sent"), std::string::npos);
  EXPECT_EQ(r.out.find("sk-cli-SECRET-42"), std::string::npos);
}

// --l2 takes tune's values; any other is refused before anything runs.
TEST(EvolveCli, L2TakesTunesValues) {
  const CliRun ok = run_cli("env KERNELEVO_LLM_URL=http://127.0.0.1:1/v1 KERNELEVO_LLM_MODEL=m " +
                            kBinary + " evolve " + kFixture + " --dry-run --l2 clean+write-back");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  const CliRun warm = run_cli("env KERNELEVO_LLM_URL=http://127.0.0.1:1/v1 KERNELEVO_LLM_MODEL=m " +
                              kBinary + " evolve " + kFixture + " --dry-run --l2 warm");
  EXPECT_EQ(warm.rc, 2) << warm.out;
  EXPECT_NE(warm.out.find("--l2"), std::string::npos) << warm.out;
}

TEST(EvolveCli, NoEndpointIsAUsageError) {
  const CliRun r =
      run_cli("env -u KERNELEVO_LLM_URL -u OPENAI_API_KEY KERNELEVO_LLM_API_KEY=sk-cli-SECRET-42 " +
              kBinary + " evolve " + kFixture);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("no LLM endpoint configured: set KERNELEVO_LLM_URL"), std::string::npos);
  EXPECT_EQ(r.out.find("sk-cli-SECRET-42"), std::string::npos);
}

TEST(EvolveCli, UnknownKernelIsAUsageError) {
  const CliRun r = run_cli(kBinary + " evolve " + kFixture + " --kernel nope --dry-run");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("no kernel with id 'nope'"), std::string::npos);
}

// A project directory with a kernelevo.yaml beside the lockfile.
class EvolveProjectFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kev-evolve-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_project_file(const std::string& text) {
    std::ofstream(dir_ / "kernelevo.yaml") << text;
  }
  std::string in_dir(const std::string& env_and_args) const {
    return "cd " + dir_.string() +
           " && env -u KERNELEVO_LLM_URL -u KERNELEVO_LLM_MODEL -u OPENAI_API_KEY " + env_and_args;
  }
  std::filesystem::path dir_;
};

TEST_F(EvolveProjectFile, AKeyWrittenInKernelevoYamlIsAnErrorNamingFileAndLine) {
  write_project_file("llm:\n  base_url: http://127.0.0.1:1/v1\n  api_key: sk-yaml-SECRET-7\n");
  for (const std::string extra : {"", " --dry-run"}) {
    const CliRun r = run_cli(in_dir(kBinary + " evolve " + kFixture + extra));
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(
        r.out.find(
            "kernelevo: kernelevo.yaml:3:3: error: llm.api_key: an API key must not be written in "
            "kernelevo.yaml"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("KERNELEVO_LLM_API_KEY"), std::string::npos);
    EXPECT_EQ(r.out.find("sk-yaml-SECRET-7"), std::string::npos);
  }
}

TEST_F(EvolveProjectFile, TheEndpointComesFromKernelevoYaml) {
  // Without the file's endpoint this is "no LLM endpoint configured" (exit 2); with it the
  // run gets as far as the GPU (none here: exit 3) or the refused endpoint (exit 3).
  write_project_file("llm:\n  base_url: http://127.0.0.1:1/v1\n  model: from-yaml\n");
  const CliRun r = run_cli(in_dir(kBinary + " evolve " + kFixture));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_EQ(r.out.find("no LLM endpoint configured"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no LLM model configured"), std::string::npos) << r.out;
}

TEST_F(EvolveProjectFile, TheFileBesideTheLockfileIsRead) {
  std::filesystem::create_directories(dir_ / "sub");
  std::ofstream(dir_ / "sub" / "kernelevo.yaml") << "llm:\n  token: x\n";
  const CliRun r = run_cli(
      in_dir(kBinary + " evolve " + kFixture + " --dry-run --lockfile sub/kernelevo.lock.json"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("sub/kernelevo.yaml:2:3: error: llm.token:"), std::string::npos) << r.out;
}

}  // namespace
