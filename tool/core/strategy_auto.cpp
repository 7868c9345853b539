// The default strategy: exhaustive for small spaces; otherwise a portfolio of spread-out
// initial samples, global samples, a local descent, genetic children and a Gaussian
// process's expected-improvement picks (parameters chosen on the recordings
// bench/results/search-vs-kernel-tuner.md names).
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
  options.descent.elite_count = 4;
  options.descent.perturb_min = 2;
  options.descent.perturb_max = 3;
  // The surrogate is a Gaussian process that also sees which values are powers of two: the
  // first 200 asks after the initial samples go to its expected-improvement picks (among 300
  // random points and the best 10 points' neighbours) or to the descent, 70% and 30%. Once
  // 20 asks in a row have not improved the best time, global samples and genetic children
  // take 10% each of the model phase's asks until one does (the GP and the descent can settle
  // on one basin of a space and stay there for the whole phase; the portfolio's other moves
  // are what leaves it). Restarts of the descent are random or perturb an elite, half each.
  options.maximin = true;
  options.gp = true;
  options.ard_passes = 1;
  options.power_of_two_features = true;
  options.failed_as_worst = true;
  options.model_phase = 200;
  options.model_share = 0.7;
  options.model_floor = 0.1;
  options.model_patience = 20;
  options.pool_random = 300;
  options.pool_elites = 10;
  options.surrogate_restarts = false;
  options.descent.random_restart = 0.5;
  return std::make_unique<PortfolioSearch>(space, seed, options);
}

}  // namespace kev
