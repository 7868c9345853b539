#include "core/local_search.h"

#include "core/moves.h"
#include "core/strategies.h"

namespace kev {

void Descent::become_centre(const Point& p, double time) {
  centre_ = p;
  centre_time_ = time;
  explored_centres_.insert(p);
  stage_ = options_.adjacent_first ? 0 : 1;
  queue_ = state_.unseen_neighbours(p, options_.adjacent_first);
}

std::optional<Point> Descent::next() {
  for (;;) {
    if (state_.exhausted()) return std::nullopt;
    if (centre_) {
      while (!queue_.empty()) {
        Point p = std::move(queue_.back());
        queue_.pop_back();
        if (state_.mark_seen(p)) return p;
      }
      if (stage_ == 0) {
        stage_ = 1;
        queue_ = state_.unseen_neighbours(*centre_, false);
        continue;
      }
      centre_.reset();  // a local optimum: every one-parameter move was tried
      ++local_optima_;
    }
    if (options_.resume_from_best && state_.best() && !explored_centres_.count(*state_.best())) {
      become_centre(*state_.best(), state_.best_time());
      continue;
    }
    auto p = restart_point();
    if (!p) return std::nullopt;
    state_.mark_seen(*p);
    awaiting_start_ = p;
    return p;
  }
}

void Descent::told(const Point& p, const Outcome& outcome) {
  const bool is_start = awaiting_start_ && *awaiting_start_ == p;
  if (is_start) awaiting_start_.reset();
  if (!outcome.passed() || !outcome.time_us) return;
  const double t = *outcome.time_us;
  if (is_start || (centre_ && t < centre_time_)) become_centre(p, t);
}

std::optional<Point> Descent::restart_point() {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  if (state_.passed().empty() || coin(state_.rng()) < options_.random_restart) {
    if (restart_source_)
      if (auto p = restart_source_()) return p;
    return state_.random_unseen();
  }
  if (auto p =
          perturbed_elite(state_, options_.elite_count, options_.perturb_min, options_.perturb_max))
    return p;
  return state_.random_unseen();
}

LocalSearch::LocalSearch(const SearchSpace& space, std::uint64_t seed, LocalSearchOptions options)
    : state_(space, seed), options_(std::move(options)), descent_(state_, options_) {}

std::optional<Point> LocalSearch::ask() {
  if (state_.exhausted()) return std::nullopt;
  if (proposed_ < static_cast<std::size_t>(options_.initial_samples)) {
    auto p = state_.random_unseen();
    if (!p) return std::nullopt;
    state_.mark_seen(*p);
    ++proposed_;
    return p;
  }
  auto p = descent_.next();
  if (p) ++proposed_;
  return p;
}

void LocalSearch::tell(const Point& p, const Outcome& outcome) {
  state_.record(p, outcome);
  descent_.told(p, outcome);
}

std::unique_ptr<Strategy> make_local(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<LocalSearch>(space, seed, LocalSearchOptions{});
}

}  // namespace kev
