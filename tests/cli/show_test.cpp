// `kernelevo show` and `kernelevo merge`, run as the built binary, against golden outputs in
// tests/fixtures/golden/. Set KERNELEVO_UPDATE_GOLDEN=1 to rewrite the golden files after an
// intended change of output (and review the diff).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/lockfile_json.h"
#include "support/cli_run.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const fs::path kLockfiles = fs::path(KERNELEVO_FIXTURES) / "lockfiles";
const fs::path kGolden = fs::path(KERNELEVO_FIXTURES) / "golden";

using test_support::CommandRun;
using test_support::quoted;
using test_support::read_text;
using test_support::run_kernelevo;
using test_support::write_text;

void expect_golden(const std::string& actual, const std::string& golden_name) {
  const fs::path golden = kGolden / golden_name;
  if (std::getenv("KERNELEVO_UPDATE_GOLDEN")) write_text(golden, actual);
  ASSERT_TRUE(fs::exists(golden)) << golden;
  EXPECT_EQ(actual, read_text(golden)) << "golden file " << golden;
}

class CliLockfile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("kev_cli_lock_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CliLockfile, ShowPrintsTheTable) {
  const CommandRun r =
      run_kernelevo("show --lockfile " + quoted((kLockfiles / "basic.lock.json").string()), dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden(r.out, "show_basic.txt");
}

TEST_F(CliLockfile, ShowJson) {
  const CommandRun r = run_kernelevo(
      "show --format json --lockfile " + quoted((kLockfiles / "basic.lock.json").string()), dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden(r.out, "show_basic.json");
}

TEST_F(CliLockfile, ShowReadsTheDefaultLockfileOfTheCurrentDirectory) {
  fs::copy_file(kLockfiles / "basic.lock.json", dir_ / "kernelevo.lock.json");
  const CommandRun r = run_kernelevo("show", dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden(r.out, "show_basic.txt");
}

TEST_F(CliLockfile, ShowWithoutLockfileExits2WithAClearMessage) {
  const CommandRun r = run_kernelevo("show", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err,
      "kernelevo: error: no lockfile at kernelevo.lock.json (run `kernelevo tune` to create one, "
      "or pass --lockfile FILE)\n");
}

TEST_F(CliLockfile, ShowOfCorruptOrNewerLockfileExits2NamingTheFile) {
  write_text(dir_ / "kernelevo.lock.json", "{\n  \"schema_version\": 1,\n  \"kernels\": {,\n");
  CommandRun r = run_kernelevo("show", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("kernelevo: kernelevo.lock.json:3:15: error: not valid JSON: ", 0), 0u)
      << r.err;
  write_text(dir_ / "kernelevo.lock.json", R"({"schema_version": 5, "kernels": {}})");
  r = run_kernelevo("show", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kernelevo: kernelevo.lock.json:1:2: error: schema_version 5 is newer than this "
            "kernelevo reads "
            "(4); upgrade kernelevo\n");
}

TEST_F(CliLockfile, ShowOfEmptyLockfileSaysSo) {
  write_text(dir_ / "kernelevo.lock.json", format_lockfile(Lockfile{}));
  const CommandRun r = run_kernelevo("show", dir_);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kernelevo: kernelevo.lock.json has no entries\n");
}

TEST_F(CliLockfile, MergeReportsConflictsAndWritesTheMergedLockfile) {
  const CommandRun r = run_kernelevo("merge kernelevo.lock.json " +
                                         quoted((kLockfiles / "shard_a.lock.json").string()) + " " +
                                         quoted((kLockfiles / "shard_b.lock.json").string()),
                                     dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_golden(r.out, "merge_shards.txt");
  const std::string merged = read_text(dir_ / "kernelevo.lock.json");
  expect_golden(merged, "merge_shards.lock.json");
  // The written file is canonical: reading and writing it again changes nothing.
  auto lock = parse_lockfile(merged, "merged");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(format_lockfile(*lock), merged);
}

TEST_F(CliLockfile, MergeKeepsTheSideMatchingTheCurrentSource) {
  // The project's src/scan.cu is the old version: shard a's entries stay even though b is newer.
  fs::create_directories(dir_ / "src");
  write_text(dir_ / "src/scan.cu", "scan-old");
  const CommandRun r = run_kernelevo("merge kernelevo.lock.json " +
                                         quoted((kLockfiles / "shard_a.lock.json").string()) + " " +
                                         quoted((kLockfiles / "shard_b.lock.json").string()),
                                     dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("scan_blocks: different sources: kept base"), std::string::npos) << r.out;
  auto lock = read_lockfile(dir_ / "kernelevo.lock.json");
  ASSERT_TRUE(lock.ok());
  EXPECT_EQ(lock->kernels.at("scan_blocks").targets.size(), 2u);
}

TEST_F(CliLockfile, MergeFailOnConflictWritesNothing) {
  const std::string original = read_text(kLockfiles / "shard_a.lock.json");
  write_text(dir_ / "kernelevo.lock.json", original);
  const CommandRun r = run_kernelevo("merge --fail-on-conflict kernelevo.lock.json " +
                                         quoted((kLockfiles / "shard_b.lock.json").string()),
                                     dir_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("conflict: softmax_rows sm_90 NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_EQ(
      r.err,
      "kernelevo: error: 2 conflicts; kernelevo.lock.json left unchanged (--fail-on-conflict)\n");
  EXPECT_EQ(read_text(dir_ / "kernelevo.lock.json"), original);
}

TEST_F(CliLockfile, MergeNeverOverwritesACorruptOutputOrReadsACorruptInput) {
  const std::string corrupt = "{\"schema_version\": 1, \"kernels\": ";
  write_text(dir_ / "kernelevo.lock.json", corrupt);
  CommandRun r = run_kernelevo(
      "merge kernelevo.lock.json " + quoted((kLockfiles / "shard_a.lock.json").string()), dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("kernelevo: kernelevo.lock.json:1:", 0), 0u) << r.err;
  EXPECT_EQ(read_text(dir_ / "kernelevo.lock.json"), corrupt);

  write_text(dir_ / "bad_in.json", R"({"schema_version": 1, "kernels": {"k": 5}})");
  r = run_kernelevo("merge out.json bad_in.json", dir_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernelevo: bad_in.json:1:35: error: k: expected an object, found an integer\n");
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
}

}  // namespace
}  // namespace kev
