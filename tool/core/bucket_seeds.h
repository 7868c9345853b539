#pragma once
// Where a bucket's search starts: the winners of the buckets searched before it in the same
// run (tune, or a replay of a trace with buckets), the kBucketSeeds nearest first, since
// neighbouring sizes tend to want neighbouring configurations.
#include <vector>

#include "core/buckets.h"
#include "core/evaluation.h"
#include "core/space.h"

namespace kev {

// How many neighbouring buckets' winners a bucket's search evaluates first.
inline constexpr std::size_t kBucketSeeds = 2;

struct BucketSeed {
  BucketRange from;  // the bucket that won with `params`
  ParamSet params;
};

class BucketWinners {
 public:
  void add(const BucketRange& range, ParamSet winner);
  // The winners of the kBucketSeeds buckets nearest to `range` (nearest_buckets), nearest first.
  [[nodiscard]] std::vector<BucketSeed> nearest(const BucketRange& range) const;

 private:
  std::vector<BucketRange> ranges_;
  std::vector<ParamSet> winners_;
};

// `seeds` as points of `space` (TuneRequest::seeds); one that is not a point of it is left out.
[[nodiscard]] std::vector<Point> seed_points(const SearchSpace& space,
                                             const std::vector<BucketSeed>& seeds);

}  // namespace kev
