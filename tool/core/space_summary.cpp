#include "core/space_summary.h"

#include <limits>

#include "core/spec_space.h"

namespace kev {

SpaceSummary summarize_space(const KernelSpec& spec) {
  SpaceSummary s;
  const SpecSpace all(spec, spec.problems);
  s.total = {all.points(), all.points() < std::numeric_limits<std::uint64_t>::max()};
  s.valid = all.count();
  if (all.depends_on_problems()) {
    for (const auto& problem : spec.problems)
      s.per_problem.push_back({problem, SpecSpace(spec, {problem}).count()});
  }
  return s;
}

}  // namespace kev
