// The default strategy: exhaustive for small spaces; otherwise a portfolio of global
// samples, a local descent, genetic children and a surrogate's picks (parameters chosen on
// the recordings bench/results/search-vs-kernel-tuner.md names).
#include "core/portfolio_search.h"
#include "core/strategies.h"

namespace kev {

namespace {
constexpr std::uint64_t kSmallSpace = 64;
}

std::unique_ptr<Strategy> make_auto(const SearchSpace& space, std::uint64_t seed) {
  if (const SpaceCount count = space.count(); count.exact && count.value <= kSmallSpace)
    return make_exhaustive(space, seed);
  PortfolioOptions options;
  options.name = "auto";
  options.descent.adjacent_first = true;
  options.descent.resume_from_best = true;
  options.descent.random_restart = 0.2;
  options.descent.elite_count = 4;
  options.descent.perturb_min = 2;
  options.descent.perturb_max = 3;
  return std::make_unique<PortfolioSearch>(space, seed, options);
}

}  // namespace kev
