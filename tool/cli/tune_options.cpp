#include "cli/tune_options.h"

namespace kev::cli {

Result<TuneBudget> tune_budget(const TuneOptions& options) {
  TuneBudget budget;
  if (options.budget) {
    if (*options.budget == 0) return make_error("--budget must be at least 1");
    budget.evaluations = options.budget;
  }
  if (!options.time.empty()) {
    auto wall = parse_duration(options.time);
    if (!wall) return make_error("--time: " + wall.error().message);
    budget.wall = *wall;
  }
  if (!budget.evaluations && !budget.wall && options.strategy != "exhaustive")
    budget.evaluations = kDefaultBudget;
  return budget;
}

}  // namespace kev::cli
