#include "io/compressed_file.h"

#include <zlib.h>

#include <limits>

namespace kev::io {

namespace {

bool has_gzip_magic(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

struct Inflater {
  z_stream z{};
  bool ok = inflateInit2(&z, 16 + MAX_WBITS) == Z_OK;  // 16: gzip framing
  Inflater() = default;
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  ~Inflater() {
    if (ok) inflateEnd(&z);
  }
};

}  // namespace

Result<std::string> gunzip(std::string_view data, std::size_t max_bytes, const std::string& path) {
  if (data.size() > std::numeric_limits<uInt>::max())
    return make_error("compressed data too large", {path});
  Inflater inflater;
  if (!inflater.ok) return make_error("cannot start decompressing", {path}, ExitCode::environment);
  z_stream& z = inflater.z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[1 << 17];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t produced = sizeof buffer - z.avail_out;
    if (out.size() + produced > max_bytes)
      return make_error(
          "decompresses to more than " + byte_size_text(max_bytes) + "; refusing to read it",
          {path});
    out.append(buffer, produced);
    if (rc == Z_STREAM_END) {
      const std::string_view rest(reinterpret_cast<const char*>(z.next_in), z.avail_in);
      if (!has_gzip_magic(rest)) break;  // the end, or trailing bytes that gzip also ignores
      if (inflateReset(&z) != Z_OK) return make_error("corrupt gzip data", {path});
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // cut short: keep what it held
    if (rc != Z_OK)
      return make_error(std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed"),
                        {path});
  }
  return out;
}

Result<std::string> read_maybe_gzip(const std::string& path, std::size_t max_bytes) {
  auto data = read_regular_file(path, max_bytes);
  if (!data) return data.error();
  if (!has_gzip_magic(*data)) return data;
  return gunzip(*data, max_bytes, path);
}

}  // namespace kev::io
