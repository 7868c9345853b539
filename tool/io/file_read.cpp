#include "io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kev {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

bool is_missing(int error) { return error == ENOENT || error == ENOTDIR; }

Error open_error(const std::filesystem::path& path, int error) {
  const bool input = is_missing(error) || error == ELOOP || error == ENAMETOOLONG;
  return make_error("cannot read " + path.string() + ": " + std::strerror(error), {},
                    input ? ExitCode::usage : ExitCode::environment);
}

// With `allow_missing`, a path that does not exist reads as false instead of an error.
Result<bool> read_chunks(const std::filesystem::path& path, std::size_t max_bytes,
                         const std::function<void(std::string_view)>& chunk, bool allow_missing) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    const int error = errno;
    if (allow_missing && is_missing(error)) return false;
    return open_error(path, error);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return open_error(path, errno);
  if (!S_ISREG(st.st_mode))
    return make_error(path.string() + " is " + kind_of(st.st_mode) + ", not a regular file", {},
                      ExitCode::usage);
  const auto too_large = [&] {
    return make_error(
        path.string() + " is larger than " + byte_size_text(max_bytes) + "; refusing to read it",
        {}, ExitCode::usage);
  };
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) return too_large();
  // The size may change while reading (or be 0, as for files under /proc): count as we go.
  std::size_t total = 0;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return open_error(path, errno);
    if (n == 0) return true;
    total += static_cast<std::size_t>(n);
    if (total > max_bytes) return too_large();
    chunk(std::string_view(buf, static_cast<std::size_t>(n)));
  }
}

}  // namespace

std::string byte_size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Status read_regular_file_chunks(const std::filesystem::path& path, std::size_t max_bytes,
                                const std::function<void(std::string_view)>& chunk) {
  auto read = read_chunks(path, max_bytes, chunk, false);
  if (!read) return read.error();
  return ok_status();
}

Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::string text;
  auto read = read_chunks(
      path, max_bytes, [&](std::string_view bytes) { text.append(bytes); }, false);
  if (!read) return read.error();
  return text;
}

Result<std::optional<std::string>> read_file_if_exists(const std::filesystem::path& path,
                                                       std::size_t max_bytes) {
  std::string text;
  auto read = read_chunks(
      path, max_bytes, [&](std::string_view bytes) { text.append(bytes); }, true);
  if (!read) return read.error();
  if (!*read) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(text));
}

}  // namespace kev
