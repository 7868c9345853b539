#include "core/bucket_seeds.h"

#include <utility>

namespace kev {

void BucketWinners::add(const BucketRange& range, ParamSet winner) {
  ranges_.push_back(range);
  winners_.push_back(std::move(winner));
}

std::vector<BucketSeed> BucketWinners::nearest(const BucketRange& range) const {
  std::vector<BucketSeed> seeds;
  for (const std::size_t n : nearest_buckets(ranges_, range, kBucketSeeds))
    seeds.push_back({ranges_[n], winners_[n]});
  return seeds;
}

std::vector<Point> seed_points(const SearchSpace& space, const std::vector<BucketSeed>& seeds) {
  std::vector<Point> points;
  for (const BucketSeed& s : seeds)
    if (auto p = space.from_params(s.params)) points.push_back(std::move(*p));
  return points;
}

}  // namespace kev
