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
      model_(space.dims()) {
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

std::optional<Point> PortfolioSearch::surrogate_pick() {
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

std::optional<Point> PortfolioSearch::propose(Move m) {
  std::optional<Point> p;
  switch (m) {
    case descent:
      return descent_.next();  // marks its point seen
    case global:
      p = state_.random_unseen();
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
  const bool warming =
      proposed_ < static_cast<std::size_t>(options_.warmup) && descent_.local_optima() == 0;
  Move m = initial ? global : warming ? descent : choose();
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
  const bool fresh = !state_.score(p);
  state_.record(p, outcome);
  if (passed && fresh) model_.add(p, t);
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
