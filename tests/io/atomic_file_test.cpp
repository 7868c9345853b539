#include "io/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/hash.h"
#include "io/lockfile_json.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("kev_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<fs::path> temporaries_in(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(e.path());
  return found;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

TEST(AtomicFile, WritesAndReplacesKeepingTheMode) {
  TempDir dir;
  const fs::path file = dir.path() / "out.json";
  ASSERT_TRUE(write_file_atomically(file, "one\n").ok());
  EXPECT_EQ(read_text(file), "one\n");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(::chmod(file.c_str(), 0664), 0);
  ASSERT_TRUE(write_file_atomically(file, "two\n").ok());
  EXPECT_EQ(read_text(file), "two\n");
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0664u);
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(AtomicFile, UncommittedWriterLeavesTheTargetAndNoTemporary) {
  TempDir dir;
  const fs::path file = dir.path() / "out.json";
  ASSERT_TRUE(write_file_atomically(file, "old\n").ok());
  {
    auto w = AtomicWriter::open(file);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->write("new but abandoned").ok());
  }
  EXPECT_EQ(read_text(file), "old\n");
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(AtomicFile, MissingDirectoryIsAnError) {
  TempDir dir;
  const Status s = write_file_atomically(dir.path() / "no" / "such" / "file", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("cannot create a temporary file"), std::string::npos);
}

// A writer killed between writing and renaming (SIGKILL: no destructor, no cleanup) must
// leave the old file exactly as it was.
TEST(AtomicFile, WriterKilledMidWriteLeavesTheOldFileIntact) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  const std::string original =
      read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  ASSERT_TRUE(write_file_atomically(file, original).ok());

  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto w = AtomicWriter::open(file);
    if (!w) ::_exit(2);
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 8; ++i)
      if (!w->write(chunk)) ::_exit(3);
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(4);
    for (;;) ::pause();  // killed here, after writing and before the rename
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  const int status = wait_for(child);
  ASSERT_TRUE(WIFSIGNALED(status));

  EXPECT_EQ(read_text(file), original);
  EXPECT_TRUE(read_lockfile(file).ok());
  // The dead writer's temporary is left behind, never the target.
  const auto temps = temporaries_in(dir.path());
  ASSERT_EQ(temps.size(), 1u);
  EXPECT_EQ(fs::file_size(temps[0]), 8u << 20);
}

// The same with the kill landing at a random moment of a large write_file_atomically.
TEST(AtomicFile, WriterKilledAtAnyMomentLeavesOldOrNewFile) {
  TempDir dir;
  const fs::path file = dir.path() / "data";
  const std::string old_text(1 << 16, 'o');
  const std::string new_text(32 << 20, 'n');
  ASSERT_TRUE(write_file_atomically(file, old_text).ok());
  for (int delay_us : {0, 2000, 20000}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      const bool ok = write_file_atomically(file, new_text).ok();
      ::_exit(ok ? 0 : 1);
    }
    ::usleep(static_cast<useconds_t>(delay_us));
    ::kill(child, SIGKILL);
    wait_for(child);
    const std::string now = read_text(file);
    EXPECT_TRUE(now == old_text || now == new_text)
        << "delay " << delay_us << ": " << now.size() << " bytes";
  }
}

TEST(FileLock, SerialisesHolders) {
  TempDir dir;
  const fs::path file = dir.path() / "f";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = FileLock::acquire(file);
    if (!lock) ::_exit(2);
    const char byte = 1;
    if (::write(ready[1], &byte, 1) != 1) ::_exit(3);
    ::usleep(300000);
    // Written while holding the lock: the parent must not get the lock before this exists.
    std::ofstream(dir.path() / "child_done") << "done";
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  {
    auto lock = FileLock::acquire(file);
    ASSERT_TRUE(lock.ok());
    EXPECT_TRUE(fs::exists(dir.path() / "child_done"));
  }
  const int status = wait_for(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// Several processes updating the lockfile at once, each adding its own kernels one
// update at a time: every entry survives.
TEST(FileLock, ConcurrentLockfileUpdatesLoseNothing) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  constexpr int kWriters = 3;
  constexpr int kEntriesEach = 15;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0; i < kEntriesEach; ++i) {
        const Status s = update_lockfile(file, [&](Lockfile& lock) {
          LockEntry e;
          e.params = {{"BLOCK", Value(64 * (i + 1))}};
          e.time_us = 10.0 + i;
          const std::string id = "w" + std::to_string(w) + "_k" + std::to_string(i);
          set_entry(lock, id, "src/" + id + ".cu", sha256_of(id), "sm_90", "NVIDIA H200", e);
          return ok_status();
        });
        if (!s) ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(child);
  }
  for (pid_t c : children) {
    const int status = wait_for(c);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto lock = read_lockfile(file);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(lock->kernels.size(), static_cast<std::size_t>(kWriters * kEntriesEach));
  EXPECT_TRUE(temporaries_in(dir.path()).empty());
}

TEST(Hash, Sha256OfBytesAndFiles) {
  EXPECT_EQ(sha256_of("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_of(""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  TempDir dir;
  const fs::path file = dir.path() / "k.cu";
  const std::string big(200000, 'q');
  std::ofstream(file, std::ios::binary) << big;
  auto h = sha256_of_file(file);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, sha256_of(big));
  EXPECT_TRUE(is_sha256_text(*h));
  EXPECT_FALSE(sha256_of_file(dir.path() / "missing.cu").ok());
  EXPECT_FALSE(is_sha256_text("sha256:ABC"));
  EXPECT_FALSE(is_sha256_text("sha256:" + std::string(64, 'A')));
  EXPECT_FALSE(is_sha256_text("md5:" + std::string(64, 'a')));
}

}  // namespace
}  // namespace kev
