#include "core/local_search.h"

#include <algorithm>

#include "core/strategies.h"

namespace kev {

LocalSearch::LocalSearch(const SearchSpace& space, std::uint64_t seed, LocalSearchOptions options)
    : state_(space, seed), options_(std::move(options)) {}

void LocalSearch::become_centre(const Point& p, double time) {
  centre_ = p;
  centre_time_ = time;
  explored_centres_.insert(p);
  stage_ = options_.adjacent_first ? 0 : 1;
  queue_ = state_.unseen_neighbours(p, options_.adjacent_first);
}

std::optional<Point> LocalSearch::ask() {
  for (;;) {
    if (state_.exhausted()) return std::nullopt;
    if (proposed_ < static_cast<std::size_t>(options_.initial_samples)) {
      auto p = state_.random_unseen();
      if (!p) return std::nullopt;
      state_.mark_seen(*p);
      ++proposed_;
      return p;
    }
    if (centre_) {
      while (!queue_.empty()) {
        Point p = std::move(queue_.back());
        queue_.pop_back();
        if (state_.mark_seen(p)) {
          ++proposed_;
          return p;
        }
      }
      if (stage_ == 0) {
        stage_ = 1;
        queue_ = state_.unseen_neighbours(*centre_, false);
        continue;
      }
      centre_.reset();  // a local optimum: every one-parameter move was tried
    }
    if (options_.resume_from_best && state_.best() && !explored_centres_.count(*state_.best())) {
      become_centre(*state_.best(), state_.best_time());
      continue;
    }
    auto p = restart_point();
    if (!p) return std::nullopt;
    state_.mark_seen(*p);
    ++proposed_;
    awaiting_start_ = p;
    return p;
  }
}

void LocalSearch::tell(const Point& p, const Outcome& outcome) {
  state_.record(p, outcome);
  const bool is_start = awaiting_start_ && *awaiting_start_ == p;
  if (is_start) awaiting_start_.reset();
  if (!outcome.passed() || !outcome.time_us) return;
  const double t = *outcome.time_us;
  if (is_start || (centre_ && t < centre_time_)) become_centre(p, t);
}

std::optional<Point> LocalSearch::restart_point() {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  if (state_.passed().empty() || coin(state_.rng()) < options_.random_restart)
    return state_.random_unseen();
  if (auto p = perturbed_elite()) return p;
  return state_.random_unseen();
}

std::optional<Point> LocalSearch::perturbed_elite() {
  auto elites = state_.passed();
  const auto k =
      std::min<std::size_t>(elites.size(), static_cast<std::size_t>(options_.elite_count));
  std::partial_sort(elites.begin(), elites.begin() + static_cast<std::ptrdiff_t>(k), elites.end(),
                    [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& dims = state_.space().dims();
  std::vector<std::size_t> free_dims;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d].values.size() > 1) free_dims.push_back(d);
  if (free_dims.empty()) return std::nullopt;
  auto& rng = state_.rng();
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Rank-biased choice: the best elite most often.
    std::size_t e = 0;
    while (e + 1 < k && std::uniform_int_distribution<int>(0, 1)(rng) == 1) ++e;
    Point p = elites[e].first;
    const int changes =
        std::uniform_int_distribution<int>(options_.perturb_min, options_.perturb_max)(rng);
    std::shuffle(free_dims.begin(), free_dims.end(), rng);
    for (int c = 0; c < changes && c < static_cast<int>(free_dims.size()); ++c) {
      const std::size_t d = free_dims[static_cast<std::size_t>(c)];
      const auto n = static_cast<std::uint32_t>(dims[d].values.size());
      std::uint32_t v = std::uniform_int_distribution<std::uint32_t>(0, n - 2)(rng);
      if (v >= p[d]) ++v;
      p[d] = v;
    }
    if (state_.space().contains(p) && !state_.seen(p)) return p;
  }
  return std::nullopt;
}

std::unique_ptr<Strategy> make_local(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<LocalSearch>(space, seed, LocalSearchOptions{});
}

}  // namespace kev
