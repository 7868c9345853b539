#include "core/portfolio_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/moves.h"

namespace kev {

PortfolioSearch::PortfolioSearch(const SearchSpace& space, std::uint64_t seed,
                                 PortfolioOptions options)
    : state_(space, seed),
      options_(std::move(options)),
      descent_(state_, options_.descent),
      model_(space.dims()),
      gp_(space.dims(), options_.ard_passes, options_.power_of_two_features) {
  if (options_.surrogate_restarts) descent_.set_restart_source([this] { return surrogate_pick(); });
}

std::array<double, PortfolioSearch::kMoves> PortfolioSearch::shares() const {
  std::array<double, kMoves> w{};
  double sum = 0;
  for (std::size_t m = 0; m < kMoves; ++m) {
    w[m] = std::pow((credit_[m] + options_.prior) / (trials_[m] + 1.0), options_.sharpness);
    sum += w[m];
  }
  const double floor = std::clamp(options_.floor, 0.0, 1.0 / kMoves);
  for (auto& x : w) x = sum > 0 ? floor + (1.0 - kMoves * floor) * x / sum : 1.0 / kMoves;
  return w;
}

PortfolioSearch::Move PortfolioSearch::choose() {
  const auto w = shares();
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(state_.rng());
  for (std::size_t m = 0; m + 1 < kMoves; ++m) {
    if (u < w[m]) return static_cast<Move>(m);
    u -= w[m];
  }
  return static_cast<Move>(kMoves - 1);
}

PortfolioSearch::Move PortfolioSearch::choose_modelling() {
  // One draw: while the best time has not improved for model_patience asks, global samples
  // and genetic children first get model_floor each; the surrogate gets model_share of the
  // rest, the descent the remainder.
  const bool stalled =
      proposed_ >= last_best_ + static_cast<std::size_t>(std::max(0, options_.model_patience));
  const double floor = stalled ? std::clamp(options_.model_floor, 0.0, 0.5) : 0.0;
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(state_.rng());
  if (u < floor) return global;
  if (u < 2 * floor) return genetic;
  return (u - 2 * floor) / (1.0 - 2 * floor) < options_.model_share ? surrogate : descent;
}

std::optional<Point> PortfolioSearch::surrogate_pick() {
  return options_.gp ? gp_pick() : additive_pick();
}

std::optional<Point> PortfolioSearch::additive_pick() {
  if (model_.size() < 2) return std::nullopt;
  if (model_fitted_ != model_.size()) {
    model_.fit();
    model_fitted_ = model_.size();
  }
  std::optional<Point> best;
  double best_y = 0;
  for (int c = 0; c < options_.candidates; ++c) {
    auto p = state_.space().sample(state_.rng());
    if (!p) return std::nullopt;
    if (state_.seen(*p)) continue;
    const double y = model_.predict(*p);
    if (!best || y < best_y) {
      best = std::move(p);
      best_y = y;
    }
  }
  return best;
}

std::optional<Point> PortfolioSearch::gp_pick() {
  const auto& passed = state_.passed();
  if (passed.size() < 2) return std::nullopt;
  if (!failed_.empty()) {
    double worst = 0;
    for (const auto& [q, t] : passed) worst = std::max(worst, t);
    for (const auto& q : failed_) gp_.add(q, std::log(worst));
    failed_.clear();
  }
  if (gp_fitted_ == 0 ||
      static_cast<double>(gp_.size()) >= static_cast<double>(gp_fitted_) * options_.refit_growth) {
    gp_.fit();
    gp_fitted_ = gp_.size();
  } else {
    gp_.update();
  }
  // Candidates: random samples, and the unseen one-parameter neighbours of the best points.
  std::vector<Point> pool;
  for (int c = 0; c < options_.pool_random; ++c) {
    auto p = state_.space().sample(state_.rng());
    if (!p) break;
    if (!state_.seen(*p)) pool.push_back(std::move(*p));
  }
  if (options_.pool_elites > 0) {
    auto elites = passed;
    const auto k = std::min(elites.size(), static_cast<std::size_t>(options_.pool_elites));
    std::partial_sort(elites.begin(), elites.begin() + static_cast<std::ptrdiff_t>(k), elites.end(),
                      [](const auto& a, const auto& b) { return a.second < b.second; });
    for (std::size_t e = 0; e < k; ++e)
      for (auto& q : state_.space().neighbours(elites[e].first))
        if (!state_.seen(q)) pool.push_back(std::move(q));
  }
  if (pool.empty()) return std::nullopt;
  const std::size_t c = gp_.best_expected_improvement(pool, std::log(state_.best_time()));
  return std::move(pool[c]);
}

std::optional<Point> PortfolioSearch::initial_sample() {
  if (!options_.maximin || initial_.empty()) return state_.random_unseen();
  // The candidate farthest (in value ranks scaled to [0, 1]) from every initial sample.
  const auto& dims = state_.space().dims();
  auto distance = [&](const Point& a, const Point& b) {
    double s = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (dims[d].values.size() > 1) {
        const double x = (static_cast<double>(a[d]) - static_cast<double>(b[d])) /
                         static_cast<double>(dims[d].values.size() - 1);
        s += x * x;
      }
    return s;
  };
  std::optional<Point> best;
  double best_d = -1;
  for (int c = 0; c < options_.maximin_candidates; ++c) {
    auto p = state_.random_unseen();
    if (!p) break;
    double d = std::numeric_limits<double>::infinity();
    for (const auto& q : initial_) d = std::min(d, distance(*p, q));
    if (d > best_d) {
      best_d = d;
      best = std::move(p);
    }
  }
  return best;
}

std::optional<Point> PortfolioSearch::propose(Move m) {
  std::optional<Point> p;
  switch (m) {
    case descent:
      return descent_.next();  // marks its point seen
    case global:
      p = proposed_ < static_cast<std::size_t>(options_.initial_samples) ? initial_sample()
                                                                         : state_.random_unseen();
      if (p && proposed_ < static_cast<std::size_t>(options_.initial_samples))
        initial_.push_back(*p);
      break;
    case genetic:
      p = genetic_child(state_, options_.population);
      break;
    case surrogate:
      p = surrogate_pick();
      break;
  }
  if (p) state_.mark_seen(*p);
  return p;
}

std::optional<Point> PortfolioSearch::ask() {
  if (state_.exhausted()) return std::nullopt;
  const bool initial = proposed_ < static_cast<std::size_t>(options_.initial_samples);
  // The first descent runs to its local optimum before any choice: on a small budget
  // nothing pays more.
  const bool modelling =
      proposed_ < static_cast<std::size_t>(options_.initial_samples + options_.model_phase);
  const bool warming =
      proposed_ < static_cast<std::size_t>(options_.warmup + options_.model_phase) &&
      descent_.local_optima() == 0;
  Move m = initial ? global : modelling ? choose_modelling() : warming ? descent : choose();
  auto p = propose(m);
  // A move type with nothing to offer (no passed point yet, no new child) hands the ask on.
  for (std::size_t other = 0; !p && other < kMoves; ++other)
    if (other != m) p = propose(m = static_cast<Move>(other));
  if (!p) return std::nullopt;
  ++proposed_;
  ++answered_[m];
  if (!initial) pending_[*p] = m;  // the initial samples earn no credit
  return p;
}

void PortfolioSearch::tell(const Point& p, const Outcome& outcome) {
  const bool passed = outcome.passed() && outcome.time_us.has_value();
  const double t = passed ? *outcome.time_us : std::numeric_limits<double>::infinity();
  const bool pays = passed && (best_times_.size() < options_.top_k || t < best_times_.back());
  if (passed) {
    best_times_.insert(std::upper_bound(best_times_.begin(), best_times_.end(), t), t);
    if (best_times_.size() > options_.top_k) best_times_.pop_back();
  }
  if (passed && t < state_.best_time()) last_best_ = proposed_;
  const bool fresh = !state_.score(p);
  state_.record(p, outcome);
  if (passed && fresh) {
    if (options_.gp)
      gp_.add(p, std::log(t));
    else
      model_.add(p, t);
  } else if (fresh && options_.gp && options_.failed_as_worst) {
    failed_.push_back(p);
  }
  const auto it = pending_.find(p);
  // The descent follows its own points (and the initial samples, a resumed trace's): a
  // better point from another move would pull its centre back into the basin it is
  // trying to leave.
  if (it == pending_.end() || it->second == descent) descent_.told(p, outcome);
  if (it == pending_.end()) return;
  const Move m = it->second;
  pending_.erase(it);
  // Each type's record fades as it is tried, so it tells what the type paid lately; one
  // left untried keeps its last record (the floor tries it again).
  credit_[m] *= options_.decay;
  trials_[m] *= options_.decay;
  trials_[m] += 1;
  if (pays) credit_[m] += 1;
}

}  // namespace kev
