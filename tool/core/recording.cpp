#include "core/recording.h"

namespace kev {

void Recording::add(Point point, Outcome outcome) {
  const auto it = index_.find(point);
  if (it != index_.end()) {
    points_[it->second].outcome = std::move(outcome);
    return;
  }
  index_.emplace(point, points_.size());
  points_.push_back({std::move(point), std::move(outcome)});
}

const Outcome* Recording::find(const Point& p) const {
  const auto it = index_.find(p);
  return it == index_.end() ? nullptr : &points_[it->second].outcome;
}

std::optional<double> Recording::optimum_us() const {
  std::optional<double> best;
  for (const auto& rp : points_)
    if (rp.outcome.passed() && rp.outcome.time_us && (!best || *rp.outcome.time_us < *best))
      best = rp.outcome.time_us;
  return best;
}

std::size_t Recording::count(Disposition d) const {
  std::size_t n = 0;
  for (const auto& rp : points_) n += rp.outcome.disposition == d ? 1 : 0;
  return n;
}

}  // namespace kev
