#pragma once
// `tune --shard I/N`: runners of a matrix each tune a deterministic share of the kernels.
// Kernels are sorted by id; the k-th (from 0) belongs to shard k % N + 1 (I is 1-based, as
// the GitHub Action's matrix passes it).
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace kev {

struct Shard {
  std::size_t index = 1;  // 1..count
  std::size_t count = 1;
};

// "2/4" -> {2, 4}. A usage error names the accepted form.
[[nodiscard]] Result<Shard> parse_shard(std::string_view text);

// The ids of `ids` that belong to `shard`, sorted (duplicates are kept once).
[[nodiscard]] std::vector<std::string> shard_ids(std::vector<std::string> ids, const Shard& shard);

}  // namespace kev
