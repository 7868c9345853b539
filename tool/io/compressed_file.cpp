#include "io/compressed_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace kev::io {

namespace {

Result<std::string> read_plain(std::FILE* f, const std::string& path) {
  std::string data;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.append(buffer, n);
  if (std::ferror(f))
    return make_error("cannot read: " + std::string(std::strerror(errno)), {path});
  return data;
}

Result<std::string> read_gzip(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) return make_error("cannot open", {path});
  gzbuffer(gz, 1 << 17);
  std::string data;
  char buffer[1 << 17];
  int n = 0;
  while ((n = gzread(gz, buffer, sizeof buffer)) > 0)
    data.append(buffer, static_cast<std::size_t>(n));
  int errnum = 0;
  const char* message = gzerror(gz, &errnum);
  const std::string reason = message ? message : "";
  gzclose(gz);
  if (n < 0 || (errnum != Z_OK && errnum != Z_BUF_ERROR))
    return make_error("corrupt gzip data: " + reason, {path});
  return data;
}

}  // namespace

Result<std::string> read_maybe_gzip(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return make_error("cannot open: " + std::string(std::strerror(errno)), {path});
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, f.get());
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    f.reset();
    return read_gzip(path);
  }
  std::rewind(f.get());
  return read_plain(f.get(), path);
}

}  // namespace kev::io
