#pragma once
// KernelResources as JSON, {"registers": 40, "shared_bytes": 0, "local_bytes": 0}: in trace
// records and in the worker protocol's outcomes. Read back only when every field is an
// integer within what a GPU can have (a trace may come from anywhere).
#include <optional>

#include "core/evaluation.h"

namespace kev::io {

template <class Json>
Json resources_to_json(const KernelResources& r) {
  return Json{
      {"registers", r.registers}, {"shared_bytes", r.shared_bytes}, {"local_bytes", r.local_bytes}};
}

// nullopt when `j` is not such an object.
template <class Json>
std::optional<KernelResources> resources_from_json(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto field = [&](const char* key, long long max) -> std::optional<int> {
    if (!j.contains(key) || !j.at(key).is_number_integer()) return std::nullopt;
    const long long v = j.at(key).template get<long long>();
    if (v < 0 || v > max) return std::nullopt;
    return static_cast<int>(v);
  };
  constexpr long long kMaxRegisters = 1 << 16;
  constexpr long long kMaxBytes = 1LL << 30;
  const auto registers = field("registers", kMaxRegisters);
  const auto shared = field("shared_bytes", kMaxBytes);
  const auto local = field("local_bytes", kMaxBytes);
  if (!registers || !shared || !local || j.size() != 3) return std::nullopt;
  return KernelResources{*registers, *shared, *local};
}

}  // namespace kev::io
