#include "core/shard.h"

#include <algorithm>
#include <charconv>

namespace kev {

namespace {

bool parse_count(std::string_view s, std::size_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

Result<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  Shard shard;
  if (slash == std::string_view::npos || !parse_count(text.substr(0, slash), shard.index) ||
      !parse_count(text.substr(slash + 1), shard.count) || shard.count == 0 || shard.index == 0 ||
      shard.index > shard.count) {
    return make_error("--shard '" + std::string(text) +
                      "': expected I/N with 1 <= I <= N (e.g. 2/4: the second of four shards)");
  }
  return shard;
}

std::vector<std::string> shard_ids(std::vector<std::string> ids, const Shard& shard) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::string> mine;
  for (std::size_t k = 0; k < ids.size(); ++k)
    if (k % shard.count + 1 == shard.index) mine.push_back(ids[k]);
  return mine;
}

}  // namespace kev
