#pragma once
// Bookkeeping every strategy shares: the points already proposed or told (never proposed
// again), the outcomes seen, the best so far, and unseen-point sampling.
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/recording.h"
#include "core/space.h"

namespace kev {

class SearchState {
 public:
  SearchState(const SearchSpace& space, std::uint64_t seed);

  [[nodiscard]] const SearchSpace& space() const { return space_; }
  Rng& rng() { return rng_; }

  [[nodiscard]] bool seen(const Point& p) const { return seen_.count(p) != 0; }
  // Marks p proposed; false when it already was.
  bool mark_seen(const Point& p);
  // Records an outcome (and marks the point seen).
  void record(const Point& p, const Outcome& outcome);
  // Every valid point has been proposed or told (never true of a space too costly to
  // count).
  [[nodiscard]] bool exhausted() const;

  // Time of a told point; +inf when it failed; nullopt when not told yet.
  [[nodiscard]] std::optional<double> score(const Point& p) const;
  [[nodiscard]] const std::optional<Point>& best() const { return best_; }
  [[nodiscard]] double best_time() const { return best_time_; }
  // Passed points, in the order they were told.
  [[nodiscard]] const std::vector<std::pair<Point, double>>& passed() const { return passed_; }
  [[nodiscard]] std::size_t told_count() const { return scores_.size(); }

  // A uniformly random valid point not yet seen (not marked); nullopt when exhausted.
  std::optional<Point> random_unseen();
  // Valid, unseen neighbours of p, shuffled.
  std::vector<Point> unseen_neighbours(const Point& p, bool adjacent_only);

 private:
  const SearchSpace& space_;
  Rng rng_;
  std::unordered_set<Point, PointHash> seen_;
  std::uint64_t seen_valid_ = 0;
  std::unordered_map<Point, double, PointHash> scores_;
  std::vector<std::pair<Point, double>> passed_;
  std::optional<Point> best_;
  double best_time_ = std::numeric_limits<double>::infinity();
};

}  // namespace kev
