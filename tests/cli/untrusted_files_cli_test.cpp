// Files a checkout or a pull request may plant: links to devices, FIFOs, directories where
// files belong, gzip bombs. Every command answers with exit 2 and the file's name, at once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/cli_run.h"
#include "support/gzip.h"

namespace {

namespace fs = std::filesystem;
using kev::test_support::CommandRun;
using kev::test_support::quoted;

const std::string kGate = std::string(KERNELEVO_FIXTURES) + "/gate";
const std::string kTemplate = std::string(KERNELEVO_SOURCE_DIR) + "/templates/softmax.cu";

class UntrustedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kev-untrusted-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A regression must fail the test, not hang it: every run is bounded.
  CommandRun kernelevo(const std::string& args) const {
    const auto start = std::chrono::steady_clock::now();
    CommandRun run = kev::test_support::run_in(
        dir_, "timeout 60 " + quoted(KERNELEVO_BINARY) + " " + args + " </dev/null");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 10.0) << args;
    return run;
  }

  fs::path dir_;
};

// 300 gzip members of 1 MiB of zeros each: 300 MiB once decompressed, 300 KiB on disk.
void write_gzip_bomb(const fs::path& path) {
  const std::string member = kev::test_support::gzip(std::string(1u << 20, '\0'));
  ASSERT_FALSE(member.empty());
  std::string bomb;
  for (int i = 0; i < 300; ++i) bomb += member;
  kev::test_support::write_text(path, bomb);
}

TEST_F(UntrustedFiles, ALockfileLinkedToDevZeroIsRefusedAtOnce) {
  fs::create_symlink("/dev/zero", dir_ / "kernelevo.lock.json");
  for (const std::string args : {"report kernelevo.lock.json", "show"}) {
    const CommandRun run = kernelevo(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find("kernelevo.lock.json is a device, not a regular file"),
              std::string::npos)
        << run.err;
  }
}

TEST_F(UntrustedFiles, ADirectoryAsLockfileIsBadInputNamingIt) {
  fs::create_directories(dir_ / "kernelevo.lock.json");
  fs::create_directories(dir_ / "src");
  fs::copy_file(kTemplate, dir_ / "src/softmax.cu");
  fs::copy_file(kGate + "/unchanged.jsonl", dir_ / "unchanged.jsonl");
  fs::copy_file(kGate + "/kernelevo.lock.json", dir_ / "in.lock.json");
  for (const std::string args :
       {"show", "report kernelevo.lock.json", "check --replay unchanged.jsonl",
        "header --source src/softmax.cu --out gen", "merge kernelevo.lock.json in.lock.json",
        "merge out.lock.json kernelevo.lock.json"}) {
    const CommandRun run = kernelevo(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find("kernelevo.lock.json is a directory, not a regular file"),
              std::string::npos)
        << args << "\n"
        << run.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.lock.json"));
}

TEST_F(UntrustedFiles, AGzipBombIsRefusedByEveryReader) {
  write_gzip_bomb(dir_ / "bomb.jsonl.gz");
  for (const std::string args :
       {"report bomb.jsonl.gz", "check --replay bomb.jsonl.gz", "tune --replay bomb.jsonl.gz"}) {
    const CommandRun run = kernelevo(args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find("bomb.jsonl.gz: error: decompresses to more than 256 MiB"),
              std::string::npos)
        << args << "\n"
        << run.err;
  }
}

TEST_F(UntrustedFiles, ScanAndCheckSkipALinkToDevZeroAndAFifoNamedLikeSources) {
  fs::create_directories(dir_ / "src");
  fs::copy_file(kTemplate, dir_ / "src/softmax.cu");
  fs::create_symlink("/dev/zero", dir_ / "src/zero.cu");
  ASSERT_EQ(::mkfifo((dir_ / "src/pipe.cu").c_str(), 0644), 0);
  const CommandRun scan = kernelevo("scan .");
  EXPECT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_NE(scan.out.find("softmax_rows"), std::string::npos) << scan.out;
  EXPECT_NE(scan.err.find("src/zero.cu: warning: not a regular file"), std::string::npos)
      << scan.err;
  EXPECT_NE(scan.err.find("src/pipe.cu: warning: not a regular file"), std::string::npos)
      << scan.err;
  // Named on the command line, they are errors.
  for (const std::string file : {"src/zero.cu", "src/pipe.cu"}) {
    const CommandRun named = kernelevo("scan " + file);
    EXPECT_EQ(named.exit_code, 2) << named.err;
    EXPECT_NE(named.err.find(file + " is a"), std::string::npos) << named.err;
  }
  // Without a GPU, check loads the specs and stops with exit 3: it must get there.
  const CommandRun check = kernelevo("check .");
  EXPECT_EQ(check.exit_code, 3) << check.err;
  EXPECT_NE(check.err.find("src/zero.cu"), std::string::npos) << check.err;
}

TEST_F(UntrustedFiles, ALockfileSourceLinkedToDevZeroIsNotHashed) {
  fs::copy(kGate, dir_, fs::copy_options::recursive);
  fs::create_directories(dir_ / "src");
  fs::create_symlink("/dev/zero", dir_ / "src/softmax.cu");
  const CommandRun check = kernelevo("check --replay unchanged.jsonl");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  const CommandRun merge = kernelevo("merge kernelevo.lock.json kernelevo.lock.json");
  EXPECT_EQ(merge.exit_code, 0) << merge.err;
}

}  // namespace
