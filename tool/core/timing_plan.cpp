#include "core/timing_plan.h"

#include <algorithm>

namespace kev {

std::size_t timing_set_count(const TimingOptions& timing, std::int64_t set_bytes) {
  if (timing.timing_sets > 0) return static_cast<std::size_t>(timing.timing_sets);
  const std::int64_t fit = timing.timing_set_budget_bytes / std::max<std::int64_t>(set_bytes, 1);
  return static_cast<std::size_t>(std::clamp<std::int64_t>(fit, 2, 4));
}

bool verifies_every_launch(const TimingOptions& timing, std::int64_t compared_bytes,
                           double copy_gbps, double launch_us) {
  if (copy_gbps <= 0.0 || launch_us <= 0.0) return false;
  const double compare_us = 2.0 * static_cast<double>(compared_bytes) / (copy_gbps * 1e3);
  return compare_us < timing.verify_every_launch_below_ratio * launch_us;
}

TimedLaunchPlan::TimedLaunchPlan(std::size_t sets, bool every, std::uint64_t seed)
    : sets_(std::max<std::size_t>(sets, 1)), every_(every), pick_(seed) {}

void TimedLaunchPlan::next_group() {
  random_ = std::uniform_int_distribution<std::size_t>(0, kGroup - 2)(pick_);
}

int randomly_verified_batch(std::uint64_t seed) {
  std::mt19937_64 pick(seed);
  return 2 + static_cast<int>(pick() % 3);
}

}  // namespace kev
