// The bounded reader (io/file_read.h) and what is built on it: hashing, gzip, the lock sidecar.
#include "io/file_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "io/atomic_file.h"
#include "io/compressed_file.h"
#include "io/hash.h"
#include "support/gzip.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

class FileRead : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kev-file-read-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  fs::path dir_;
};

using test_support::gzip;

TEST_F(FileRead, ReadsRegularFilesAndLinksToThem) {
  const auto file = write("a.cu", "text\n");
  fs::create_symlink(file, dir_ / "link.cu");
  auto text = read_regular_file(dir_ / "link.cu", 100);
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  EXPECT_EQ(*text, "text\n");
  auto maybe = read_file_if_exists(file, 5);
  ASSERT_TRUE(maybe.ok());
  EXPECT_EQ(maybe->value_or(""), "text\n");
}

TEST_F(FileRead, AMissingFileIsAnErrorOrNothing) {
  auto text = read_regular_file(dir_ / "missing.cu", 100);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ExitCode::usage);
  EXPECT_NE(text.error().message.find((dir_ / "missing.cu").string()), std::string::npos);
  auto maybe = read_file_if_exists(dir_ / "missing.cu", 100);
  ASSERT_TRUE(maybe.ok());
  EXPECT_FALSE(maybe->has_value());
}

TEST_F(FileRead, ALinkToADeviceIsRefusedAtOnce) {
  fs::create_symlink("/dev/zero", dir_ / "zero.cu");
  const auto start = std::chrono::steady_clock::now();
  auto text = read_regular_file(dir_ / "zero.cu", kMaxSourceBytes);
  ASSERT_FALSE(text.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(text.error().code, ExitCode::usage);
  EXPECT_EQ(text.error().message, (dir_ / "zero.cu").string() + " is a device, not a regular file");
  EXPECT_FALSE(read_file_if_exists(dir_ / "zero.cu", kMaxSourceBytes).ok());
  auto hash = sha256_of_file(dir_ / "zero.cu");
  ASSERT_FALSE(hash.ok());
  EXPECT_NE(hash.error().message.find("is a device"), std::string::npos);
}

TEST_F(FileRead, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe.cu").c_str(), 0644), 0);
  auto text = read_regular_file(dir_ / "pipe.cu", kMaxSourceBytes);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, (dir_ / "pipe.cu").string() + " is a FIFO, not a regular file");
  EXPECT_FALSE(sha256_of_file(dir_ / "pipe.cu").ok());
}

TEST_F(FileRead, ADirectoryIsRefusedAsInput) {
  fs::create_directories(dir_ / "kernelevo.lock.json");
  auto maybe = read_file_if_exists(dir_ / "kernelevo.lock.json", kMaxLockfileBytes);
  ASSERT_FALSE(maybe.ok());
  EXPECT_EQ(maybe.error().code, ExitCode::usage);
  EXPECT_EQ(maybe.error().message,
            (dir_ / "kernelevo.lock.json").string() + " is a directory, not a regular file");
}

TEST_F(FileRead, MoreThanTheCapIsRefusedNamingFileAndCap) {
  const auto file = write("big.json", std::string(3u << 20, 'x'));
  auto text = read_regular_file(file, 2u << 20);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, ExitCode::usage);
  EXPECT_EQ(text.error().message, file.string() + " is larger than 2 MiB; refusing to read it");
  EXPECT_TRUE(read_regular_file(file, 3u << 20).ok());
  auto hash = sha256_of_file(file, 1000);
  ASSERT_FALSE(hash.ok());
  EXPECT_NE(hash.error().message.find("larger than 1000 bytes"), std::string::npos);
}

TEST_F(FileRead, GzipIsCappedOnItsDecompressedSize) {
  const auto bomb = write("bomb.jsonl.gz", gzip(std::string(4u << 20, '\0')));
  ASSERT_LT(fs::file_size(bomb), 20000u);
  auto text = io::read_maybe_gzip(bomb.string(), 1u << 20);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().where.file, bomb.string());
  EXPECT_EQ(text.error().message, "decompresses to more than 1 MiB; refusing to read it");
  auto whole = io::read_maybe_gzip(bomb.string(), 4u << 20);
  ASSERT_TRUE(whole.ok()) << whole.error().to_string();
  EXPECT_EQ(whole->size(), 4u << 20);
}

TEST_F(FileRead, GzipMembersFollowingEachOtherAreRead) {
  const auto file = write("two.gz", gzip("first\n") + gzip("second\n"));
  auto text = io::read_maybe_gzip(file.string());
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  EXPECT_EQ(*text, "first\nsecond\n");
  // Members are counted together against the cap.
  const std::string member = gzip(std::string(1u << 20, '\0'));
  std::string many;
  for (int i = 0; i < 5; ++i) many += member;
  auto capped = io::gunzip(many, 4u << 20, "many.gz");
  ASSERT_FALSE(capped.ok());
  EXPECT_NE(capped.error().message.find("more than 4 MiB"), std::string::npos);
}

TEST_F(FileRead, GzipCutShortKeepsWhatItHolds) {
  std::string data;
  for (int i = 0; i < 2000; ++i) data += "{\"line\": " + std::to_string(i) + "}\n";
  const std::string packed = gzip(data);
  auto cut = io::gunzip(packed.substr(0, packed.size() / 2), 1u << 20, "cut.gz");
  ASSERT_TRUE(cut.ok()) << cut.error().to_string();
  EXPECT_FALSE(cut->empty());
  EXPECT_EQ(data.compare(0, cut->size(), *cut), 0);
  auto corrupt = io::gunzip(packed.substr(0, 10) + std::string(50, '\xff'), 1u << 20, "bad.gz");
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.error().message.find("corrupt gzip data"), std::string::npos);
}

TEST_F(FileRead, APlainFileAboveTheCapIsRefusedByTheGzipReader) {
  const auto file = write("big.jsonl", std::string(2u << 20, 'x'));
  auto text = io::read_maybe_gzip(file.string(), 1u << 20);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("larger than 1 MiB"), std::string::npos);
}

TEST_F(FileRead, TheLockSidecarIsNeverFollowedThroughALink) {
  const auto victim = dir_ / "victim.txt";
  fs::create_symlink(victim, dir_ / "kernelevo.lock.json.lock");
  auto lock = FileLock::acquire(dir_ / "kernelevo.lock.json");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().code, ExitCode::usage);
  EXPECT_NE(lock.error().message.find("kernelevo.lock.json.lock is not a regular file"),
            std::string::npos)
      << lock.error().message;
  EXPECT_FALSE(fs::exists(victim));  // not created through the link
  // A lockfile update refuses too, and leaves the lockfile alone.
  const auto lockfile = write("kernelevo.lock.json", "{}\n");
  EXPECT_FALSE(update_file_locked(lockfile, 1000, [](const auto&) -> Result<std::string> {
                 return std::string("changed\n");
               }).ok());
  std::ifstream in(lockfile);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "{}");
}

TEST_F(FileRead, AFifoSidecarIsRefused) {
  ASSERT_EQ(::mkfifo((dir_ / "f.json.lock").c_str(), 0644), 0);
  auto lock = FileLock::acquire(dir_ / "f.json");
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.error().message.find("is not a regular file"), std::string::npos);
  ASSERT_TRUE(FileLock::acquire(dir_ / "g.json").ok());  // a fresh sidecar is fine
}

}  // namespace
}  // namespace kev
