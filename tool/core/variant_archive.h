#pragma once
// The archive of verified source variants, MAP-Elites style: variants are binned by a
// simple feature of their code (widest vector type used, code length band) and each bin
// keeps its fastest. Parents come from the best-so-far or, for diversity, any bin's elite.
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kev {

struct ArchiveEntry {
  std::string label;   // "original", "g1c2"
  std::string source;  // full file text
  double time_us = 0.0;
  std::string feature;
};

class VariantArchive {
 public:
  // "vec4/short": the widest vector type the code uses and a band of its length.
  [[nodiscard]] static std::string feature_of(std::string_view kernel_code);

  // Keeps the entry when its bin is empty or it beats the bin's elite. Returns whether kept.
  bool add(ArchiveEntry entry);
  [[nodiscard]] bool empty() const { return cells_.empty(); }
  [[nodiscard]] const ArchiveEntry* best() const;
  [[nodiscard]] std::vector<const ArchiveEntry*> elites() const;  // fastest first
  // Half the time the best, otherwise a uniformly chosen elite. Precondition: !empty().
  [[nodiscard]] const ArchiveEntry& select_parent(std::mt19937_64& rng) const;

 private:
  std::map<std::string, ArchiveEntry> cells_;
};

}  // namespace kev
