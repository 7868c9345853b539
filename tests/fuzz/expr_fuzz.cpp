// libFuzzer entry point for the expression language: parsing never crashes, and the two
// evaluation paths (name lookup and bound slots) always agree.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "core/expr.h"

namespace {

std::int64_t value_for(std::string_view name) {
  // Deterministic, includes zero, negatives and extremes so that errors are reached.
  static constexpr std::int64_t kValues[] = {0, 1, -1, 2, 7, 64, -128, 4096, INT64_MAX, INT64_MIN};
  std::uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return kValues[h % (sizeof kValues / sizeof kValues[0])];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = kev::Expr::parse(text, {"fuzz.cu", 1, 1});
  if (!parsed.ok()) return 0;
  const kev::Expr& e = parsed.value();
  const auto by_lookup = e.eval([](std::string_view name) -> std::optional<std::int64_t> {
    if (name.size() > 1 && name[0] == 'u') return std::nullopt;  // some names are undefined
    return value_for(name);
  });
  std::vector<std::int64_t> slots;
  std::vector<std::uint32_t> slot_of_name;
  bool has_undefined = false;
  for (const auto& name : e.names()) {
    if (name.size() > 1 && name[0] == 'u') has_undefined = true;
    slot_of_name.push_back(static_cast<std::uint32_t>(slots.size()));
    slots.push_back(value_for(name));
  }
  std::int64_t fast = 0;
  const bool fast_ok = e.eval_slots(slots.data(), slot_of_name.data(), fast);
  if (!has_undefined) {
    if (fast_ok != by_lookup.ok()) std::abort();
    if (fast_ok && fast != by_lookup.value()) std::abort();
  }
  // Reparsing the text gives the same names.
  auto again = kev::Expr::parse(e.text(), {"fuzz.cu", 1, 1});
  if (!again.ok() || again->names() != e.names()) std::abort();
  return 0;
}
