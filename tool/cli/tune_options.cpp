#include "cli/tune_options.h"

#include <algorithm>
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

Result<std::vector<int>> tune_devices(const TuneOptions& options) {
  const std::string& g = options.gpus;
  if (g.empty()) return std::vector<int>{0};
  if (g == "all") return std::vector<int>{};
  std::vector<int> devices;
  std::size_t begin = 0;
  while (begin <= g.size()) {
    const std::size_t end = std::min(g.find(',', begin), g.size());
    int index = -1;
    const auto [stop, ec] = std::from_chars(g.data() + begin, g.data() + end, index);
    if (ec != std::errc() || stop != g.data() + end || index < 0 || end == begin)
      return make_error("--gpus " + g + ": expected all, a GPU index, or a list such as 0,1");
    devices.push_back(index);
    begin = end + 1;
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

}  // namespace kev::cli
