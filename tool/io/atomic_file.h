#pragma once
// Crash-safe file replacement: readers see the old file or the new one, never a part.
// Writers of one file serialise on an advisory lock (flock) on a "<file>.lock" sidecar.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

// Streams a new version of a file into a temporary file in the same directory
// (".<name>.tmp.XXXXXX"); commit() fsyncs it, renames it over the target and fsyncs the
// directory. Destroyed without commit (or killed at any point), the target is untouched;
// the temporary file is removed unless the process died.
class AtomicWriter {
 public:
  static Result<AtomicWriter> open(const std::filesystem::path& target);
  AtomicWriter(AtomicWriter&& other) noexcept;
  AtomicWriter& operator=(AtomicWriter&&) = delete;
  AtomicWriter(const AtomicWriter&) = delete;
  ~AtomicWriter();

  Status write(std::string_view bytes);
  Status commit();

 private:
  AtomicWriter(std::filesystem::path target, std::filesystem::path temp, int fd)
      : target_(std::move(target)), temp_(std::move(temp)), fd_(fd) {}
  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
};

Status write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// An exclusive advisory lock on "<path>.lock", held until destroyed. acquire() waits for
// other holders (other processes, or other FileLocks in this one). The sidecar is never
// followed through a link and must be a regular file.
class FileLock {
 public:
  static Result<FileLock> acquire(const std::filesystem::path& path);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Read-modify-write under the lock: reads the file (nullopt when absent; refused when it is
// not a regular file or holds more than `max_bytes`), asks `update` for the new contents and
// writes them atomically. When reading or `update` fails, or `update` returns the contents
// unchanged, the file is not touched.
using FileUpdate = std::function<Result<std::string>(const std::optional<std::string>& old)>;
Status update_file_locked(const std::filesystem::path& path, std::size_t max_bytes,
                          const FileUpdate& update);

}  // namespace kev
