#include "core/source_defaults.h"

#include <charconv>
#include <sstream>

namespace kev {

namespace {

Value parse_literal(const std::string& text) {
  std::int64_t i = 0;
  const char* end = text.data() + text.size();
  if (auto [p, ec] = std::from_chars(text.data(), end, i); ec == std::errc() && p == end)
    return Value(i);
  double d = 0.0;
  if (auto [p, ec] = std::from_chars(text.data(), end, d); ec == std::errc() && p == end)
    return Value(d);
  return Value(text);
}

}  // namespace

Result<ParamSet> source_defaults(std::string_view source_text, const KernelSpec& spec) {
  std::map<std::string, std::string> found;
  std::istringstream in{std::string(source_text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string hash, name, value;
    if (!(words >> hash)) continue;
    if (hash == "#") {
      std::string directive;
      words >> directive;
      hash += directive;
    }
    if (hash != "#define" || !(words >> name) || !(words >> value)) continue;
    if (value.rfind("//", 0) == 0 || value.rfind("/*", 0) == 0) continue;
    found.try_emplace(name, value);
  }
  ParamSet out;
  for (const auto& p : spec.params) {
    auto it = found.find(p.name);
    if (it == found.end())
      return make_error("parameter " + p.name +
                            " has no default in the source: add "
                            "`#ifndef " +
                            p.name + "` / `#define " + p.name +
                            " <value>` so the "
                            "source builds without kernelevo",
                        p.where);
    out[p.name] = parse_literal(it->second);
  }
  return out;
}

}  // namespace kev
