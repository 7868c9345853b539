#include "core/replay_evaluator.h"

namespace kev {

Outcome ReplayEvaluator::evaluate(const Point& p) {
  const Outcome* recorded = recording_.find(p);
  if (recorded == nullptr) {
    Outcome out;
    out.disposition = Disposition::invalid;
    out.detail = "not in the recording";
    return out;
  }
  Outcome out = *recorded;
  if (noise_ && out.passed() && !out.samples_us.empty()) {
    std::uniform_int_distribution<std::size_t> pick(0, out.samples_us.size() - 1);
    out.time_us = out.samples_us[pick(*noise_)];
  }
  return out;
}

}  // namespace kev
