#include "core/strategy.h"

#include "core/strategies.h"

namespace kev {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"auto",   "exhaustive", "random",
                                              "evolve", "anneal",     "local"};
  return names;
}

Result<std::unique_ptr<Strategy>> make_strategy(std::string_view name, const SearchSpace& space,
                                                std::uint64_t seed) {
  if (name == "auto") return make_auto(space, seed);
  if (name == "exhaustive") return make_exhaustive(space, seed);
  if (name == "random") return make_random(space, seed);
  if (name == "evolve") return make_evolve(space, seed);
  if (name == "anneal") return make_anneal(space, seed);
  if (name == "local") return make_local(space, seed);
  std::string known;
  for (const auto& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
  return make_error("unknown strategy '" + std::string(name) + "' (expected one of: " + known +
                    ")");
}

}  // namespace kev
