#include "cli/tune_options.h"

#include <charconv>

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

Result<int> tune_device(const TuneOptions& options) {
  const std::string& g = options.gpus;
  if (g.empty() || g == "all") return 0;
  int index = -1;
  const auto [end, ec] = std::from_chars(g.data(), g.data() + g.size(), index);
  if (ec == std::errc() && end == g.data() + g.size() && index >= 0) return index;
  if (g.find(',') != std::string::npos)
    return make_error("--gpus " + g +
                      ": tuning on several GPUs at once is not supported yet; give one index "
                      "(--gpus 1), or split the kernels across runners with --shard I/N");
  return make_error("--gpus " + g + ": expected all, a GPU index, or a list such as 0,1");
}

}  // namespace kev::cli
