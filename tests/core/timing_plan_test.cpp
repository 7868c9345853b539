// The GPU timer's rules that need no GPU: input-set rotation and which timed launches are
// verified.
#include "core/timing_plan.h"

#include <gtest/gtest.h>

#include <set>

namespace kev {
namespace {

// Traces and workers name the timing method; a dirty start wins over the write-back charge,
// which measures against a clean flush and so is not taken from a dirty one.
TEST(TimingPlan, TheTimingMethodNamesTheL2StateTheRunStartsFrom) {
  TimingOptions t;
  EXPECT_STREQ(timing_method(t), "cold-l2");
  t.charge_writeback = true;
  EXPECT_STREQ(timing_method(t), "cold-l2+write-back");
  t.dirty_l2 = true;
  EXPECT_STREQ(timing_method(t), "cold-dirty-l2");
  t.flush_l2 = false;
  EXPECT_STREQ(timing_method(t), "warm-l2");
}

TEST(TimingPlan, ASpecThatSaysTimingAloneTurnsBatchingOffAndNothingElse) {
  TimingOptions t;
  t.batch_below_us = 20.0;
  t.dirty_l2 = true;
  KernelSpec spec;
  EXPECT_DOUBLE_EQ(timing_for(spec, t).batch_below_us, 20.0);
  spec.time_alone = true;
  const TimingOptions alone = timing_for(spec, t);
  EXPECT_DOUBLE_EQ(alone.batch_below_us, 0.0);
  EXPECT_TRUE(alone.dirty_l2);
  EXPECT_STREQ(timing_method(alone), timing_method(t));
}

TEST(TimingPlan, SetsFitTheBudgetFromTwoToFour) {
  TimingOptions t;
  t.timing_set_budget_bytes = 1 << 30;
  EXPECT_EQ(timing_set_count(t, 1 << 20), 4u);                // small sets: four
  EXPECT_EQ(timing_set_count(t, 384 << 20), 2u);              // 2.67 fit: two
  EXPECT_EQ(timing_set_count(t, std::int64_t{4} << 30), 2u);  // larger than the budget: still two
  EXPECT_EQ(timing_set_count(t, 0), 4u);
  t.timing_sets = 3;
  EXPECT_EQ(timing_set_count(t, 1 << 20), 3u);
  t.timing_sets = 1;  // asked for: the single-set timing the red-team tests compare with
  EXPECT_EQ(timing_set_count(t, 1 << 20), 1u);
}

TEST(TimingPlan, ConsecutiveLaunchesNeverShareASet) {
  for (std::size_t sets : {2u, 3u, 4u}) {
    TimedLaunchPlan plan(sets, false, 7);
    std::set<std::size_t> seen;
    for (std::size_t k = 0; k + 1 < 100; ++k) {
      EXPECT_NE(plan.set_of(k), plan.set_of(k + 1));
      seen.insert(plan.set_of(k));
    }
    EXPECT_EQ(seen.size(), sets);
  }
}

TEST(TimingPlan, EveryGroupVerifiesItsLastLaunchAndOneOtherChosenAtRandom) {
  TimedLaunchPlan plan(2, false, 42);
  std::set<std::size_t> random_ones;
  for (int g = 0; g < 200; ++g) {
    plan.next_group();
    int verified = 0;
    for (std::size_t b = 0; b < TimedLaunchPlan::kGroup; ++b)
      if (plan.verified(b)) {
        ++verified;
        if (b != TimedLaunchPlan::kGroup - 1) random_ones.insert(b);
      }
    EXPECT_EQ(verified, 2);
    EXPECT_TRUE(plan.verified(TimedLaunchPlan::kGroup - 1));
  }
  EXPECT_EQ(random_ones.size(), TimedLaunchPlan::kGroup - 1);  // any of the others can be it
}

TEST(TimingPlan, LaunchesAreAllVerifiedWhenComparingCostsLittleBesideThem) {
  TimingOptions t;
  // 64 MiB of outputs at 4000 GB/s: about 34 us to compare.
  EXPECT_TRUE(verifies_every_launch(t, 64 << 20, 4000.0, 3000.0));  // a 3 ms GEMM
  EXPECT_FALSE(verifies_every_launch(t, 64 << 20, 4000.0, 60.0));   // a memory-bound pass
  EXPECT_FALSE(verifies_every_launch(t, 64 << 20, 0.0, 3000.0));    // no ceiling measured
  t.verify_every_launch_below_ratio = 1.0;
  EXPECT_TRUE(verifies_every_launch(t, 64 << 20, 4000.0, 60.0));
  TimedLaunchPlan plan(2, true, 1);
  plan.next_group();
  for (std::size_t b = 0; b < TimedLaunchPlan::kGroup; ++b) EXPECT_TRUE(plan.verified(b));
}

TEST(TimingPlan, TheRandomBatchIsTheSecondToFourth) {
  std::set<int> seen;
  for (std::uint64_t seed = 0; seed < 100; ++seed) seen.insert(randomly_verified_batch(seed));
  EXPECT_EQ(seen, (std::set<int>{2, 3, 4}));
}

TEST(TimingPlan, BatchCopiesTogetherExceedFourL2s) {
  EXPECT_EQ(batch_stride(1), 256u);
  EXPECT_EQ(batch_stride(256), 256u);
  EXPECT_EQ(batch_stride(257), 512u);
  const std::int64_t l2 = 60 << 20;  // the H200's
  // 512 KiB sets: 480 copies exceed 240 MiB, one more so the first is evicted too.
  EXPECT_EQ(batch_copies(512 << 10, l2), 481u);
  EXPECT_GT(batch_copies(512 << 10, l2) * (512 << 10), std::size_t{4} * l2);
  EXPECT_EQ(batch_copies(1 << 30, l2), 2u);  // at least two
  EXPECT_EQ(batch_copies(256, l2), 4096u);   // at most 4096
  EXPECT_EQ(batch_copies(std::size_t{512} << 20, l2), 2u);
  EXPECT_EQ(batch_copies(1 << 20, 0), 5u);  // an unknown L2 counts as 1 MiB
  // Sets of over 2 GiB (where 4 GiB holds fewer than two) still get two copies.
  EXPECT_EQ(batch_copies(std::size_t{3} << 30, l2), 2u);
  EXPECT_EQ(batch_copies(std::size_t{5} << 30, l2), 2u);
}

TEST(TimingPlan, SamplingStopsAtTheCountsAndDurations) {
  TimingOptions t;
  t.min_runs = 3;
  t.max_runs = 5;
  t.min_seconds = 0.01;
  t.max_seconds = 1.0;
  const std::vector<double> two{1.0, 1.0}, three{1.0, 1.0, 1.0}, five(5, 1.0);
  EXPECT_EQ(next_sampling_step(t, two, 0.5, 1), SamplingStep::more);      // too few
  EXPECT_EQ(next_sampling_step(t, three, 0.001, 1), SamplingStep::more);  // too short
  EXPECT_EQ(next_sampling_step(t, three, 0.01, 1), SamplingStep::done);
  EXPECT_EQ(next_sampling_step(t, five, 0.0, 1), SamplingStep::done);  // max_runs
  EXPECT_EQ(next_sampling_step(t, two, 1.0, 1), SamplingStep::done);   // max_seconds
}

TEST(TimingPlan, SamplingStopsEarlyWhenClearlySlower) {
  TimingOptions t;
  t.incumbent_us = 1.0;
  t.early_stop_ratio = 1.3;
  const std::vector<double> slow(8, 1.4), close(8, 1.2);
  EXPECT_EQ(next_sampling_step(t, slow, 0.0, 8), SamplingStep::stopped_early);
  EXPECT_EQ(next_sampling_step(t, slow, 0.0, 9), SamplingStep::more);  // a group not yet in
  EXPECT_EQ(next_sampling_step(t, close, 0.0, 8), SamplingStep::more);
  t.incumbent_us = 0.0;  // no incumbent: never early
  EXPECT_EQ(next_sampling_step(t, slow, 0.0, 8), SamplingStep::more);
}

TEST(TimingPlan, DeferredWriteBackIsChargedBeyondACleanFlush) {
  // The flush after a launch took 60 us where a clean L2's takes 50 (median of three).
  EXPECT_DOUBLE_EQ(writeback_charged_us(30.0, 60.0, {49.0, 50.0, 51.0}), 40.0);
  // Nothing left dirty: the flush's own noise, either way, not clamped.
  EXPECT_DOUBLE_EQ(writeback_charged_us(30.0, 49.5, {49.0, 50.0, 51.0}), 29.5);
  // No clean flush measured (no flush, or charging off): the launch alone.
  EXPECT_DOUBLE_EQ(writeback_charged_us(30.0, 60.0, {}), 30.0);
}

}  // namespace
}  // namespace kev
