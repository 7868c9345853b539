#include "core/timing_plan.h"

#include <algorithm>

#include "core/stats.h"

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

std::size_t batch_stride(std::size_t bytes) {
  constexpr std::size_t kAlign = 256;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

std::size_t batch_copies(std::size_t set_bytes, std::int64_t l2_bytes) {
  constexpr std::size_t kMaxCopies = 4096;
  constexpr std::size_t kMaxBytes = std::size_t{4} << 30;
  const auto l2 = static_cast<std::size_t>(std::max<std::int64_t>(l2_bytes, 1 << 20));
  std::size_t copies = (4 * l2 + set_bytes - 1) / set_bytes + 1;
  // At least two copies, also where two already pass kMaxBytes (the allocation then says so).
  return std::max<std::size_t>(2, std::min({copies, kMaxCopies, kMaxBytes / set_bytes}));
}

double writeback_charged_us(double kernel_us, double drain_us,
                            const std::vector<double>& clean_drain_us) {
  if (clean_drain_us.empty()) return kernel_us;
  return kernel_us + (drain_us - stats::median(clean_drain_us));
}

TimingOptions timing_for(const KernelSpec& spec, TimingOptions timing) {
  if (spec.time_alone) timing.batch_below_us = 0.0;
  return timing;
}

SamplingStep next_sampling_step(const TimingOptions& t, const std::vector<double>& samples,
                                double elapsed_s, int samples_per_call) {
  const auto n = static_cast<int>(samples.size());
  if (t.incumbent_us > 0.0 && n >= samples_per_call &&
      stats::median(samples) > t.incumbent_us * t.early_stop_ratio)
    return SamplingStep::stopped_early;
  if ((n >= t.min_runs && elapsed_s >= t.min_seconds) || n >= t.max_runs ||
      elapsed_s >= t.max_seconds)
    return SamplingStep::done;
  return SamplingStep::more;
}

}  // namespace kev
