#include "io/hash.h"

#include <openssl/evp.h>

#include <array>
#include <memory>

namespace kev {
namespace {

struct DigestContext {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  DigestContext() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void update(const void* data, std::size_t size) { EVP_DigestUpdate(ctx.get(), data, size); }
  std::string finish() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx.get(), digest.data(), &length);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text = "sha256:";
    for (unsigned int i = 0; i < length; ++i) {
      text += kHex[digest[i] >> 4];
      text += kHex[digest[i] & 0xf];
    }
    return text;
  }
};

}  // namespace

std::string sha256_of(std::string_view bytes) {
  DigestContext d;
  d.update(bytes.data(), bytes.size());
  return d.finish();
}

Result<std::string> sha256_of_file(const std::filesystem::path& path, std::size_t max_bytes) {
  DigestContext d;
  auto read = read_regular_file_chunks(
      path, max_bytes, [&](std::string_view bytes) { d.update(bytes.data(), bytes.size()); });
  if (!read) return read.error();
  return d.finish();
}

bool is_sha256_text(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) return false;
  for (char c : text.substr(kPrefix.size()))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace kev
