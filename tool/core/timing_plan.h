#pragma once
// Which input set each timed launch runs on, which timed launches are verified, how many
// copies a batch holds and when sampling stops: the device-independent rules of the GPU
// timer (cuda/timer.cpp), kept here so they are tested without a GPU. See docs/evaluator.md
// for why these launches suffice.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "core/runner.h"

namespace kev {

// Input sets timed launches rotate over: TimingOptions::timing_sets when given (1 only when
// asked for, to reproduce single-set timing in tests), else as many sets of `set_bytes`
// (a set's inputs and reference outputs) as fit in the budget, from 2 to 4.
[[nodiscard]] std::size_t timing_set_count(const TimingOptions& timing, std::int64_t set_bytes);

// Whether every timed launch is verified: when comparing `compared_bytes` of outputs with
// their reference (both read once at `copy_gbps`) takes less than
// TimingOptions::verify_every_launch_below_ratio of a launch of `launch_us`.
[[nodiscard]] bool verifies_every_launch(const TimingOptions& timing, std::int64_t compared_bytes,
                                         double copy_gbps, double launch_us);

// Launches timed alone, in groups of `kGroup` to a synchronisation: launch k runs on set
// k mod sets; in a group, the last launch and one other chosen at random are verified (all
// of them when `every`); const inputs are checked after the group's last launch.
class TimedLaunchPlan {
 public:
  static constexpr std::size_t kGroup = 8;
  TimedLaunchPlan(std::size_t sets, bool every, std::uint64_t seed);
  // Starts the next group: call before its first launch.
  void next_group();
  // Once the first samples tell what a launch costs.
  void verify_every(bool every) { every_ = every; }
  [[nodiscard]] std::size_t set_of(std::size_t launch) const { return launch % sets_; }
  // `index`: the launch's place in the current group, 0-based.
  [[nodiscard]] bool verified(std::size_t index) const {
    return every_ || index == kGroup - 1 || index == random_;
  }
  [[nodiscard]] std::size_t sets() const { return sets_; }

 private:
  std::size_t sets_;
  bool every_;
  std::mt19937_64 pick_;
  std::size_t random_ = 0;
};

// The timing a spec's kernel gets: `timing`, with batching off when the spec says
// `timing: alone`.
[[nodiscard]] TimingOptions timing_for(const KernelSpec& spec, TimingOptions timing);

// Batched timing verifies the last batch and one of the 2nd to 4th, chosen from `seed`.
[[nodiscard]] int randomly_verified_batch(std::uint64_t seed);

// Batched timing: each argument's copies lie `batch_stride` bytes apart (256-byte aligned),
// and there are as many copies of a set of `set_bytes` as together exceed 4x the L2 (at
// least 1 MiB assumed), from 2 to 4096 and at most 4 GiB in all.
[[nodiscard]] std::size_t batch_stride(std::size_t bytes);
[[nodiscard]] std::size_t batch_copies(std::size_t set_bytes, std::int64_t l2_bytes);

// A launch's time with its deferred write-back charged (TimingOptions::charge_writeback):
// `kernel_us` between its events, plus what the flush after it (`drain_us`) took beyond
// the median of flushes of a clean L2 (`clean_drain_us`). Not clamped at zero: a launch
// that leaves nothing dirty is charged the flush's noise, which averages out.
[[nodiscard]] double writeback_charged_us(double kernel_us, double drain_us,
                                          const std::vector<double>& clean_drain_us);

// After each sample: go on, stop (TimingOptions' counts and durations reached), or stop early
// (clearly slower than the incumbent once `samples_per_call` samples are in).
enum class SamplingStep { more, done, stopped_early };
[[nodiscard]] SamplingStep next_sampling_step(const TimingOptions& t,
                                              const std::vector<double>& samples, double elapsed_s,
                                              int samples_per_call);

}  // namespace kev
