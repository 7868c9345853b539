#pragma once
// Points spread over a spec's space for tests that check every shipped template without
// visiting every point: the first and last valid points in enumeration order and a seeded
// uniform sample of `sampled` more (duplicates dropped).
#include <algorithm>
#include <optional>
#include <vector>

#include "core/spec_space.h"

namespace kev::test_support {

inline std::vector<Point> spread_points(const SpecSpace& space, std::size_t sampled,
                                        Rng::result_type seed) {
  std::vector<Point> points;
  std::optional<Point> last;
  space.for_each([&](const Point& p) {
    if (points.empty()) points.push_back(p);
    last = p;
    return true;
  });
  if (last && (points.empty() || *last != points.front())) points.push_back(*last);
  Rng rng(seed);
  for (std::size_t i = 0; i < sampled; ++i)
    if (auto p = space.sample(rng);
        p && std::find(points.begin(), points.end(), *p) == points.end())
      points.push_back(*p);
  return points;
}

}  // namespace kev::test_support
