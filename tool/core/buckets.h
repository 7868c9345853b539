#pragma once
// Problem-size buckets: ranges of one problem dimension, each with its own winner (a spec's
// `dispatch`, a lockfile entry's `buckets`). A bucket is [lo, hi), hi absent for no upper
// bound. Buckets are ordered and do not overlap; a value outside every bucket takes the
// nearest one by ratio (the lower one on a tie): problem sizes scale, so 2048 between winners
// tuned at 16 and 4096 is 2x from 4096 and 128x from 16. Sizes below 1 count as 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kev {

struct BucketRange {
  std::int64_t lo = 0;
  std::optional<std::int64_t> hi;  // exclusive; none: no upper bound

  [[nodiscard]] bool contains(std::int64_t v) const { return v >= lo && (!hi || v < *hi); }
  // How far `v` is from the range as a ratio: 0 inside, else lo / v below it and
  // v / (hi - 1) above it (at least 1), each size taken as at least 1. Computed in double,
  // as the generated dispatchers and bench/templates/buckets.py compute it.
  [[nodiscard]] double distance(std::int64_t v) const;
  [[nodiscard]] std::string to_string() const;  // "[0, 2048)", "[8192, inf)"
  friend bool operator==(const BucketRange&, const BucketRange&) = default;
};

// The most buckets a spec or a lockfile entry may hold.
inline constexpr std::size_t kMaxBuckets = 64;

// Why `ranges` are not a valid bucket list (empty list, lo >= hi, out of order, overlapping,
// an unbounded bucket before the last, more than kMaxBuckets), naming the bucket by its
// index from 0; nullopt when they are.
[[nodiscard]] std::optional<std::string> bucket_ranges_error(
    const std::vector<BucketRange>& ranges);

// The bucket serving `v`: the one containing it, else the nearest by ratio (the lower on a
// tie).
// `ranges` must not be empty.
[[nodiscard]] std::size_t nearest_bucket(const std::vector<BucketRange>& ranges, std::int64_t v);

// The indices of up to `most` of `ranges` nearest to `target` (by the distance of its lower
// bound, the earlier on a tie), nearest first: whose winners a bucket's search starts from.
[[nodiscard]] std::vector<std::size_t> nearest_buckets(const std::vector<BucketRange>& ranges,
                                                       const BucketRange& target, std::size_t most);

// "cols [0, 2048)": a bucket as reports and notes name it.
[[nodiscard]] std::string bucket_label(const std::string& dim, const BucketRange& range);

}  // namespace kev
