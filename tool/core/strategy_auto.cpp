// The default strategy: exhaustive for small spaces; otherwise iterated local search
// (parameters chosen on the convolution recordings, see bench/results/strategies.md).
#include "core/local_search.h"
#include "core/strategies.h"

namespace kev {

namespace {
constexpr std::uint64_t kSmallSpace = 64;
}

std::unique_ptr<Strategy> make_auto(const SearchSpace& space, std::uint64_t seed) {
  if (const SpaceCount count = space.count(); count.exact && count.value <= kSmallSpace)
    return make_exhaustive(space, seed);
  LocalSearchOptions options;
  options.name = "auto";
  options.initial_samples = 10;
  options.adjacent_first = true;
  options.resume_from_best = true;
  options.random_restart = 0.2;
  options.elite_count = 4;
  options.perturb_min = 2;
  options.perturb_max = 3;
  return std::make_unique<LocalSearch>(space, seed, options);
}

}  // namespace kev
