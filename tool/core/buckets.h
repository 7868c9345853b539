#pragma once
// Problem-size buckets: ranges of one problem dimension, each with its own winner (a spec's
// `dispatch`, a lockfile entry's `buckets`). A bucket is [lo, hi), hi absent for no upper
// bound. Buckets are ordered and do not overlap; a value outside every bucket takes the
// nearest one (the lower one on a tie).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kev {

struct BucketRange {
  std::int64_t lo = 0;
  std::optional<std::int64_t> hi;  // exclusive; none: no upper bound

  [[nodiscard]] bool contains(std::int64_t v) const { return v >= lo && (!hi || v < *hi); }
  // How far `v` is from the range (0 inside).
  [[nodiscard]] std::uint64_t distance(std::int64_t v) const;
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

// The bucket serving `v`: the one containing it, else the nearest (the lower on a tie).
// `ranges` must not be empty.
[[nodiscard]] std::size_t nearest_bucket(const std::vector<BucketRange>& ranges, std::int64_t v);

// "cols [0, 2048)": a bucket as reports and notes name it.
[[nodiscard]] std::string bucket_label(const std::string& dim, const BucketRange& range);

}  // namespace kev
