#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "io/file_read.h"

namespace kev {
namespace {

Error io_error(const std::string& what, const std::filesystem::path& path) {
  return make_error(what + " " + path.string() + ": " + std::strerror(errno), {},
                    ExitCode::environment);
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  const auto dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

// So a rename survives a power cut, the directory entry must reach the disk too.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

Result<AtomicWriter> AtomicWriter::open(const std::filesystem::path& target) {
  const auto dir = directory_of(target);
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return io_error("cannot create a temporary file for", target);
  // mkstemp makes 0600 files; keep the target's mode, or the usual 0644 for a new file.
  struct stat st {};
  const mode_t mode = ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  ::fchmod(fd, mode);
  return AtomicWriter(target, std::filesystem::path(name.data()), fd);
}

AtomicWriter::AtomicWriter(AtomicWriter&& other) noexcept
    : target_(std::move(other.target_)), temp_(std::move(other.temp_)), fd_(other.fd_) {
  other.fd_ = -1;
  other.temp_.clear();
}

AtomicWriter::~AtomicWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Status AtomicWriter::write(std::string_view bytes) {
  if (fd_ < 0) return make_error("write after commit to " + target_.string());
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write", temp_);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return ok_status();
}

Status AtomicWriter::commit() {
  if (fd_ < 0) return make_error("commit twice to " + target_.string());
  if (::fsync(fd_) != 0) return io_error("cannot flush", temp_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return io_error("cannot close", temp_);
  if (::rename(temp_.c_str(), target_.c_str()) != 0) return io_error("cannot replace", target_);
  temp_.clear();
  sync_directory(directory_of(target_));
  return ok_status();
}

Status write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  auto writer = AtomicWriter::open(path);
  if (!writer) return writer.error();
  if (auto s = writer->write(contents); !s) return s.error();
  return writer->commit();
}

Result<FileLock> FileLock::acquire(const std::filesystem::path& path) {
  const std::filesystem::path lock_path = path.string() + ".lock";
  // O_NOFOLLOW: a planted link must not make the lock create or open another file;
  // O_NONBLOCK: a planted FIFO must not block the open.
  const int fd =
      ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0 && errno != ELOOP && errno != EISDIR)
    return io_error("cannot open the lock file", lock_path);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    return make_error("the lock file " + lock_path.string() +
                          " is not a regular file (a link, a directory or a device); remove it "
                          "and kernelevo creates it again",
                      {}, ExitCode::usage);
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const Error e = io_error("cannot lock", lock_path);
    ::close(fd);
    return e;
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

Status update_file_locked(const std::filesystem::path& path, std::size_t max_bytes,
                          const FileUpdate& update) {
  auto lock = FileLock::acquire(path);
  if (!lock) return lock.error();
  auto old = read_file_if_exists(path, max_bytes);
  if (!old) return old.error();
  auto next = update(*old);
  if (!next) return next.error();
  if (old->has_value() && **old == *next) return ok_status();
  return write_file_atomically(path, *next);
}

}  // namespace kev
