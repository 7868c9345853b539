// A genetic algorithm: the population is the best points evaluated so far; children come from
// tournament selection, uniform crossover and per-gene mutation (often to an adjacent value).
#include <algorithm>

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

  std::optional<Point> child() {
    auto population = state_.passed();
    const auto k = std::min(population.size(), kPopulation);
    std::partial_sort(population.begin(), population.begin() + static_cast<std::ptrdiff_t>(k),
                      population.end(),
                      [](const auto& a, const auto& b) { return a.second < b.second; });
    population.resize(k);
    auto& rng = state_.rng();
    std::uniform_int_distribution<std::size_t> pick(0, k - 1);
    auto tournament = [&]() -> const Point& {
      const std::size_t a = pick(rng), b = pick(rng);
      return population[std::min(a, b)].first;  // sorted: the lower index is the fitter
    };
    const auto& dims = state_.space().dims();
    const double mutation = 1.0 / static_cast<double>(std::max<std::size_t>(1, dims.size()));
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (int attempt = 0; attempt < 50; ++attempt) {
      const Point& mother = tournament();
      const Point& father = tournament();
      Point c(dims.size());
      for (std::size_t d = 0; d < dims.size(); ++d) {
        c[d] = coin(rng) < 0.5 ? mother[d] : father[d];
        const auto n = static_cast<std::uint32_t>(dims[d].values.size());
        if (n > 1 && coin(rng) < mutation * 1.5) {
          if (coin(rng) < 0.5) {
            if (c[d] == 0)
              c[d] = 1;
            else if (c[d] + 1 == n)
              c[d] = n - 2;
            else
              c[d] = coin(rng) < 0.5 ? c[d] - 1 : c[d] + 1;
          } else {
            c[d] = std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
          }
        }
      }
      if (state_.space().contains(c) && !state_.seen(c)) return c;
    }
    return std::nullopt;
  }

  SearchState state_;
  std::size_t proposed_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_evolve(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<EvolveStrategy>(space, seed);
}

}  // namespace kev
