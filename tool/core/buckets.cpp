#include "core/buckets.h"

#include <algorithm>

namespace kev {

double BucketRange::distance(std::int64_t v) const {
  const auto size = [](std::int64_t x) {
    return static_cast<double>(std::max<std::int64_t>(x, 1));
  };
  if (v < lo) return size(lo) / size(v);
  if (hi && v >= *hi) return size(v) / size(*hi - 1);
  return 0;
}

std::string BucketRange::to_string() const {
  return "[" + std::to_string(lo) + ", " + (hi ? std::to_string(*hi) : std::string("inf")) + ")";
}

std::optional<std::string> bucket_ranges_error(const std::vector<BucketRange>& ranges) {
  if (ranges.empty()) return "no buckets";
  if (ranges.size() > kMaxBuckets)
    return std::to_string(ranges.size()) + " buckets; at most " + std::to_string(kMaxBuckets);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const BucketRange& r = ranges[i];
    const std::string name = "bucket " + std::to_string(i) + " " + r.to_string();
    if (r.hi && *r.hi <= r.lo) return name + " is empty: its upper bound must exceed its lower";
    if (i + 1 == ranges.size()) break;
    const BucketRange& next = ranges[i + 1];
    if (!r.hi)
      return name + " has no upper bound, so bucket " + std::to_string(i + 1) + " " +
             next.to_string() + " overlaps it; only the last bucket may be unbounded";
    if (next.lo < *r.hi)
      return "bucket " + std::to_string(i + 1) + " " + next.to_string() +
             (next.lo < r.lo ? " comes before " : " overlaps ") + name +
             "; list buckets in increasing order without overlap";
  }
  return std::nullopt;
}

std::size_t nearest_bucket(const std::vector<BucketRange>& ranges, std::int64_t v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].distance(v) < ranges[best].distance(v)) best = i;
  return best;
}

std::vector<std::size_t> nearest_buckets(const std::vector<BucketRange>& ranges,
                                         const BucketRange& target, std::size_t most) {
  std::vector<std::size_t> order(ranges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranges[a].distance(target.lo) < ranges[b].distance(target.lo);
  });
  if (order.size() > most) order.resize(most);
  return order;
}

std::string bucket_label(const std::string& dim, const BucketRange& range) {
  return dim + " " + range.to_string();
}

}  // namespace kev
