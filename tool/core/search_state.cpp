#include "core/search_state.h"

#include <algorithm>

namespace kev {

SearchState::SearchState(const SearchSpace& space, std::uint64_t seed)
    : space_(space), rng_(seed) {}

bool SearchState::mark_seen(const Point& p) {
  if (!seen_.insert(p).second) return false;
  if (space_.contains(p)) ++seen_valid_;
  return true;
}

void SearchState::record(const Point& p, const Outcome& outcome) {
  mark_seen(p);
  const double t = outcome.passed() && outcome.time_us ? *outcome.time_us
                                                       : std::numeric_limits<double>::infinity();
  if (!scores_.emplace(p, t).second) return;
  if (outcome.passed() && outcome.time_us) {
    passed_.emplace_back(p, t);
    if (t < best_time_) {
      best_time_ = t;
      best_ = p;
    }
  }
}

bool SearchState::exhausted() const {
  const SpaceCount count = space_.count();
  return count.exact && seen_valid_ >= count.value;
}

std::optional<double> SearchState::score(const Point& p) const {
  const auto it = scores_.find(p);
  if (it == scores_.end()) return std::nullopt;
  return it->second;
}

std::optional<Point> SearchState::random_unseen() {
  if (exhausted()) return std::nullopt;
  // Rejection sampling while most of the space is unseen; enumerate when it is not.
  for (int attempt = 0; attempt < 64; ++attempt) {
    auto p = space_.sample(rng_);
    if (!p) return std::nullopt;
    if (!seen(*p)) return p;
  }
  // Enumerating a space that could not even be counted would not end.
  if (!space_.count().exact) return std::nullopt;
  std::optional<Point> chosen;
  std::uint64_t unseen = 0;
  space_.for_each([&](const Point& p) {
    if (seen(p)) return true;
    ++unseen;  // reservoir sampling: uniform over the unseen points
    if (std::uniform_int_distribution<std::uint64_t>(1, unseen)(rng_) == 1) chosen = p;
    return true;
  });
  return chosen;
}

std::vector<Point> SearchState::unseen_neighbours(const Point& p, bool adjacent_only) {
  std::vector<Point> out;
  for (auto& q : space_.neighbours(p, adjacent_only))
    if (!seen(q)) out.push_back(std::move(q));
  std::shuffle(out.begin(), out.end(), rng_);
  return out;
}

}  // namespace kev
