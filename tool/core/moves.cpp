#include "core/moves.h"

#include <algorithm>

namespace kev {

namespace {
// The best k passed points, best first.
std::vector<std::pair<Point, double>> best_passed(const SearchState& state, std::size_t k) {
  auto population = state.passed();
  k = std::min(population.size(), k);
  std::partial_sort(population.begin(), population.begin() + static_cast<std::ptrdiff_t>(k),
                    population.end(),
                    [](const auto& a, const auto& b) { return a.second < b.second; });
  population.resize(k);
  return population;
}
}  // namespace

std::optional<Point> genetic_child(SearchState& state, std::size_t population_size) {
  const auto population = best_passed(state, population_size);
  if (population.empty()) return std::nullopt;
  const auto k = population.size();
  auto& rng = state.rng();
  std::uniform_int_distribution<std::size_t> pick(0, k - 1);
  auto tournament = [&]() -> const Point& {
    const std::size_t a = pick(rng), b = pick(rng);
    return population[std::min(a, b)].first;  // sorted: the lower index is the fitter
  };
  const auto& dims = state.space().dims();
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
    if (state.space().contains(c) && !state.seen(c)) return c;
  }
  return std::nullopt;
}

std::optional<Point> perturbed_elite(SearchState& state, int elite_count, int perturb_min,
                                     int perturb_max) {
  const auto elites = best_passed(state, static_cast<std::size_t>(std::max(1, elite_count)));
  if (elites.empty()) return std::nullopt;
  const auto k = elites.size();
  const auto& dims = state.space().dims();
  std::vector<std::size_t> free_dims;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (dims[d].values.size() > 1) free_dims.push_back(d);
  if (free_dims.empty()) return std::nullopt;
  auto& rng = state.rng();
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Rank-biased choice: the best elite most often.
    std::size_t e = 0;
    while (e + 1 < k && std::uniform_int_distribution<int>(0, 1)(rng) == 1) ++e;
    Point p = elites[e].first;
    const int changes = std::uniform_int_distribution<int>(perturb_min, perturb_max)(rng);
    std::shuffle(free_dims.begin(), free_dims.end(), rng);
    for (int c = 0; c < changes && c < static_cast<int>(free_dims.size()); ++c) {
      const std::size_t d = free_dims[static_cast<std::size_t>(c)];
      const auto n = static_cast<std::uint32_t>(dims[d].values.size());
      std::uint32_t v = std::uniform_int_distribution<std::uint32_t>(0, n - 2)(rng);
      if (v >= p[d]) ++v;
      p[d] = v;
    }
    if (state.space().contains(p) && !state.seen(p)) return p;
  }
  return std::nullopt;
}

}  // namespace kev
