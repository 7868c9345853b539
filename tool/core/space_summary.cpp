#include "core/space_summary.h"

#include "core/spec_space.h"

namespace kev {

SpaceSummary summarize_space(const KernelSpec& spec) {
  SpaceSummary s;
  const SpecSpace all(spec, spec.problems);
  s.total = all.points();
  s.valid = all.size();
  if (all.depends_on_problems()) {
    for (const auto& problem : spec.problems)
      s.per_problem.push_back({problem, SpecSpace(spec, {problem}).size()});
  }
  return s;
}

}  // namespace kev
