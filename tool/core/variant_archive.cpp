#include "core/variant_archive.h"

#include <algorithm>
#include <array>
#include <utility>

namespace kev {

std::string VariantArchive::feature_of(std::string_view code) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kVectors{{
      {"float4", "vec4"},
      {"int4", "vec4"},
      {"uint4", "vec4"},
      {"double2", "vec4"},
      {"float2", "vec2"},
      {"int2", "vec2"},
      {"__half2", "vec2"},
      {"half2", "vec2"},
      {"__nv_bfloat162", "vec2"},
      {"uint2", "vec2"},
  }};
  std::string_view width = "scalar";
  for (const auto& [type, name] : kVectors) {
    if (code.find(type) == std::string_view::npos) continue;
    if (name == "vec4" || width == "scalar") width = name;
  }
  const std::string_view band = code.size() < 1500   ? "short"
                                : code.size() < 4000 ? "medium"
                                                     : "long";
  return std::string(width) + "/" + std::string(band);
}

bool VariantArchive::add(ArchiveEntry entry) {
  auto it = cells_.find(entry.feature);
  if (it != cells_.end() && it->second.time_us <= entry.time_us) return false;
  const std::string key = entry.feature;
  cells_[key] = std::move(entry);
  return true;
}

const ArchiveEntry* VariantArchive::best() const {
  const ArchiveEntry* best = nullptr;
  for (const auto& [key, entry] : cells_)
    if (!best || entry.time_us < best->time_us) best = &entry;
  return best;
}

std::vector<const ArchiveEntry*> VariantArchive::elites() const {
  std::vector<const ArchiveEntry*> out;
  for (const auto& [key, entry] : cells_) out.push_back(&entry);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto* a, const auto* b) { return a->time_us < b->time_us; });
  return out;
}

const ArchiveEntry& VariantArchive::select_parent(std::mt19937_64& rng) const {
  const auto all = elites();
  if (all.size() == 1 || std::uniform_int_distribution<int>(0, 1)(rng) == 0) return *all.front();
  return *all[std::uniform_int_distribution<std::size_t>(0, all.size() - 1)(rng)];
}

}  // namespace kev
