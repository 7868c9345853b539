// A genetic algorithm: the population is the best points evaluated so far; children come from
// tournament selection, uniform crossover and per-gene mutation (often to an adjacent value).
#include "core/moves.h"
#include "core/search_state.h"
#include "core/strategies.h"

namespace kev {
namespace {

class EvolveStrategy : public Strategy {
 public:
  EvolveStrategy(const SearchSpace& space, std::uint64_t seed) : state_(space, seed) {}

  std::optional<Point> ask() override {
    if (state_.exhausted()) return std::nullopt;
    std::optional<Point> p;
    if (state_.passed().size() >= kPopulation / 2 && proposed_ >= kPopulation) p = child();
    if (!p) p = state_.random_unseen();
    if (!p) return std::nullopt;
    state_.mark_seen(*p);
    ++proposed_;
    return p;
  }
  void tell(const Point& p, const Outcome& outcome) override { state_.record(p, outcome); }
  [[nodiscard]] std::string name() const override { return "evolve"; }

 private:
  static constexpr std::size_t kPopulation = 20;

  std::optional<Point> child() { return genetic_child(state_, kPopulation); }

  SearchState state_;
  std::size_t proposed_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_evolve(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<EvolveStrategy>(space, seed);
}

}  // namespace kev
