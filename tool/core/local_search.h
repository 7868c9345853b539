#pragma once
// Local search over one-parameter moves, shared by `local` (greedy first-improvement with
// random restarts) and `auto` (adjacent-value moves before full one-parameter sweeps,
// iterated restarts perturbing the best points found).
#include <functional>
#include <string>
#include <unordered_set>

#include "core/search_state.h"
#include "core/strategy.h"

namespace kev {

struct LocalSearchOptions {
  std::string name = "local";
  int initial_samples = 0;        // random points before the first descent
  bool adjacent_first = false;    // try next-lower/next-higher values before full sweeps
  bool resume_from_best = false;  // descend from the best point when it was not yet a centre
  double random_restart = 1.0;    // probability a restart is random (else perturb an elite)
  int elite_count = 4;            // restarts perturb one of the best `elite_count` points
  int perturb_min = 2;            // dimensions changed by a perturbation
  int perturb_max = 3;
};

// The descent itself, over a SearchState it shares with its owner (which records every
// outcome in it before calling told()): first-improvement moves around a centre, then a
// restart. initial_samples and name are the owner's business.
class Descent {
 public:
  Descent(SearchState& state, LocalSearchOptions options)
      : state_(state), options_(std::move(options)) {}
  // Where a restart that is not a perturbed elite starts (a random unseen point without it);
  // the returned point must be valid and unseen.
  void set_restart_source(std::function<std::optional<Point>()> source) {
    restart_source_ = std::move(source);
  }
  // The next point, marked seen; nullopt when none is left to propose.
  std::optional<Point> next();
  void told(const Point& p, const Outcome& outcome);
  // How many centres were left with every one-parameter move tried.
  [[nodiscard]] std::size_t local_optima() const { return local_optima_; }

 private:
  void become_centre(const Point& p, double time);
  std::optional<Point> restart_point();

  SearchState& state_;
  LocalSearchOptions options_;
  std::optional<Point> centre_;
  double centre_time_ = 0;
  int stage_ = 0;  // 0: adjacent moves queued, 1: full sweeps queued
  std::vector<Point> queue_;
  std::optional<Point> awaiting_start_;
  std::unordered_set<Point, PointHash> explored_centres_;
  std::size_t local_optima_ = 0;
  std::function<std::optional<Point>()> restart_source_;
};

class LocalSearch : public Strategy {
 public:
  LocalSearch(const SearchSpace& space, std::uint64_t seed, LocalSearchOptions options);
  std::optional<Point> ask() override;
  void tell(const Point& p, const Outcome& outcome) override;
  [[nodiscard]] std::string name() const override { return options_.name; }

 private:
  SearchState state_;
  LocalSearchOptions options_;
  Descent descent_;
  std::size_t proposed_ = 0;
};

}  // namespace kev
