// Simulated annealing over one-parameter moves. Acceptance uses the relative slowdown, so the
// temperature means the same on microsecond and millisecond kernels.
#include <cmath>

#include "core/search_state.h"
#include "core/strategies.h"

namespace kev {
namespace {

class AnnealStrategy : public Strategy {
 public:
  AnnealStrategy(const SearchSpace& space, std::uint64_t seed) : state_(space, seed) {}

  std::optional<Point> ask() override {
    if (state_.exhausted()) return std::nullopt;
    std::optional<Point> p;
    if (current_) {
      auto moves = state_.unseen_neighbours(*current_, false);
      if (!moves.empty()) p = moves.front();
    }
    if (!p) p = state_.random_unseen();  // no current point yet, or all its moves seen
    if (!p) return std::nullopt;
    state_.mark_seen(*p);
    return p;
  }

  void tell(const Point& p, const Outcome& outcome) override {
    state_.record(p, outcome);
    ++steps_;
    temperature_ = std::max(kFinalTemperature, temperature_ * kCooling);
    if (!outcome.passed() || !outcome.time_us) return;
    const double t = *outcome.time_us;
    bool accept = !current_ || t < current_time_;
    if (!accept) {
      const double slowdown = (t - current_time_) / current_time_;
      accept = std::uniform_real_distribution<double>(0.0, 1.0)(state_.rng()) <
               std::exp(-slowdown / temperature_);
    }
    if (accept) {
      current_ = p;
      current_time_ = t;
    }
  }
  [[nodiscard]] std::string name() const override { return "anneal"; }

 private:
  static constexpr double kCooling = 0.98;
  static constexpr double kFinalTemperature = 0.005;
  SearchState state_;
  std::optional<Point> current_;
  double current_time_ = 0;
  double temperature_ = 0.3;
  std::size_t steps_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_anneal(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<AnnealStrategy>(space, seed);
}

}  // namespace kev
