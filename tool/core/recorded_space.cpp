#include "core/recorded_space.h"

#include <algorithm>

namespace kev {

RecordedSpace::RecordedSpace(const Recording& recording) : dims_(recording.dims) {
  points_.reserve(recording.points().size());
  for (const auto& rp : recording.points()) points_.push_back(rp.point);
  std::sort(points_.begin(), points_.end());
  members_.reserve(points_.size());
  members_.insert(points_.begin(), points_.end());
}

bool RecordedSpace::contains(const Point& p) const { return members_.count(p) != 0; }

std::optional<Point> RecordedSpace::sample(Rng& rng) const {
  if (points_.empty()) return std::nullopt;
  std::uniform_int_distribution<std::size_t> pick(0, points_.size() - 1);
  return points_[pick(rng)];
}

void RecordedSpace::for_each(const std::function<bool(const Point&)>& visit) const {
  for (const auto& p : points_)
    if (!visit(p)) return;
}

}  // namespace kev
