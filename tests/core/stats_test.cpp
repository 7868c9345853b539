#include "core/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>
#include <vector>

namespace kev::stats {
namespace {

std::vector<double> normal_samples(std::mt19937_64& rng, std::size_t n, double mean,
                                   double rel_sd) {
  std::normal_distribution<double> dist(mean, mean * rel_sd);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

TEST(Stats, MedianOddEvenAndEmpty) {
  const std::vector<double> odd{5, 1, 3};
  const std::vector<double> even{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(odd), 3.0);
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_TRUE(std::isnan(median(std::vector<double>{})));
}

TEST(Stats, QuantileInterpolatesLikeNumpy) {
  const std::vector<double> v{10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 50.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 30.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 14.0);  // numpy.quantile([10..50], 0.1) == 14
  EXPECT_DOUBLE_EQ(quantile(v, 0.75), 40.0);
}

TEST(Stats, BootstrapMedianIntervalIsSeededAndCoversTheMedian) {
  std::mt19937_64 rng(1);
  const auto s = normal_samples(rng, 40, 100.0, 0.02);
  const Interval a = bootstrap_median_ci(s);
  const Interval b = bootstrap_median_ci(s);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(a.contains(median(s)));
  EXPECT_LT(a.high - a.low, 3.0);  // about +-1% of 100 for 40 samples at 2% noise
}

TEST(Stats, BootstrapRatioIntervalBracketsTheTrueRatio) {
  std::mt19937_64 rng(2);
  const auto base = normal_samples(rng, 40, 100.0, 0.02);
  const auto head = normal_samples(rng, 40, 120.0, 0.02);
  const Interval ci = bootstrap_ratio_ci(base, head);
  EXPECT_TRUE(ci.contains(1.2)) << ci.low << " " << ci.high;
  EXPECT_GT(ci.low, 1.15);
  EXPECT_LT(ci.high, 1.25);
}

// Each side's log half-width adds in quadrature, below and above the ratio separately.
TEST(Stats, RatioIntervalOfMediansAddsTheLogHalfWidths) {
  const Interval ci = ratio_interval_of_medians(100.0, {95.0, 104.0}, 50.0, {49.0, 52.0});
  const double ratio = 0.5;
  EXPECT_NEAR(ci.low, ratio * std::exp(-std::hypot(std::log(50.0 / 49.0), std::log(104.0 / 100.0))),
              1e-12);
  EXPECT_NEAR(ci.high, ratio * std::exp(std::hypot(std::log(52.0 / 50.0), std::log(100.0 / 95.0))),
              1e-12);
  EXPECT_TRUE(ci.contains(ratio));
  // A side without width leaves the other's interval, moved to the ratio.
  const Interval one = ratio_interval_of_medians(100.0, {100.0, 100.0}, 50.0, {49.0, 52.0});
  EXPECT_NEAR(one.low, 0.49, 1e-12);
  EXPECT_NEAR(one.high, 0.52, 1e-12);
  // Nothing usable: no interval rather than a made-up one.
  for (const Interval& bad :
       {ratio_interval_of_medians(0.0, {0.0, 1.0}, 50.0, {49.0, 52.0}),
        ratio_interval_of_medians(100.0, {101.0, 104.0}, 50.0, {49.0, 52.0}),
        ratio_interval_of_medians(100.0, {95.0, 104.0}, 50.0, {-1.0, 52.0})}) {
    EXPECT_TRUE(std::isnan(bad.low));
    EXPECT_TRUE(std::isnan(bad.high));
  }
}

// From the two medians' bootstrap intervals it comes out close to the bootstrap interval of
// the ratio itself, which needs the samples.
TEST(Stats, RatioIntervalOfMediansIsCloseToTheBootstrapOfTheRatio) {
  std::mt19937_64 rng(11);
  const auto base = normal_samples(rng, 200, 100.0, 0.03);
  const auto head = normal_samples(rng, 200, 80.0, 0.02);
  const Interval from_samples = bootstrap_ratio_ci(base, head);
  const Interval from_medians = ratio_interval_of_medians(median(base), bootstrap_median_ci(base),
                                                          median(head), bootstrap_median_ci(head));
  const double width = from_samples.high - from_samples.low;
  EXPECT_NEAR(from_medians.low, from_samples.low, 0.25 * width);
  EXPECT_NEAR(from_medians.high, from_samples.high, 0.25 * width);
}

TEST(Stats, MannWhitneyExactMatchesTables) {
  // Completely separated samples of 5 and 5: U = 25, exact two-sided p = 2 / C(10,5).
  const std::vector<double> a{6, 7, 8, 9, 10};
  const std::vector<double> b{1, 2, 3, 4, 5};
  const RankTest t = mann_whitney_u(a, b);
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 25.0);
  EXPECT_NEAR(t.p_value, 2.0 / 252.0, 1e-12);
  // Interleaved samples: U = 12 of a maximum 25, p = 1 after doubling the tail (capped).
  const std::vector<double> c{1, 3, 5, 7, 9};
  const std::vector<double> d{2, 4, 6, 8, 10};
  const RankTest u = mann_whitney_u(c, d);
  EXPECT_DOUBLE_EQ(u.u, 10.0);
  EXPECT_GT(u.p_value, 0.5);
}

TEST(Stats, MannWhitneyNormalApproximationWithTies) {
  // R's wilcox.test(a, b, exact = FALSE, correct = TRUE): W = 5.5, p-value = 0.005471.
  const std::vector<double> a{1, 2, 2, 3, 3, 3, 4, 4};
  const std::vector<double> b{3, 4, 4, 5, 5, 6, 6, 7};
  const RankTest t = mann_whitney_u(a, b);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 5.5);
  EXPECT_NEAR(t.p_value, 0.005471, 1e-5);
}

TEST(Stats, MannWhitneyAllTiedGivesNoEvidence) {
  const std::vector<double> a(10, 3.0);
  const std::vector<double> b(10, 3.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, b).p_value, 1.0);
}

// The three Must-show properties of the gate, each over 1000 seeded trials of 40 samples
// per side.
struct Tally {
  int same = 0, slower = 0, faster = 0, unsure = 0;
};
Tally run_trials(double head_factor, double noise, std::uint64_t seed, double base_us = 100.0) {
  std::mt19937_64 rng(seed);
  Tally t;
  CompareOptions options;
  options.bootstrap.iterations = 500;
  for (int trial = 0; trial < 1000; ++trial) {
    const auto base = normal_samples(rng, 40, base_us, noise);
    const auto head = normal_samples(rng, 40, base_us * head_factor, noise);
    options.bootstrap.seed = static_cast<std::uint64_t>(trial);
    switch (compare(base, head, options).verdict) {
      case Verdict::same:
        ++t.same;
        break;
      case Verdict::slower:
        ++t.slower;
        break;
      case Verdict::faster:
        ++t.faster;
        break;
      case Verdict::unsure:
        ++t.unsure;
        break;
    }
  }
  std::cout << "  head/base " << head_factor << ", noise " << noise << ": SAME " << t.same
            << ", SLOWER " << t.slower << ", FASTER " << t.faster << ", UNSURE " << t.unsure
            << " of 1000\n";
  return t;
}

TEST(StatsCompare, IdenticalDistributionsAreSameAtLeast999Of1000) {
  const Tally t = run_trials(1.0, 0.02, 11);
  EXPECT_GE(t.same, 999) << "slower " << t.slower << " faster " << t.faster << " unsure "
                         << t.unsure;
}

TEST(StatsCompare, TenPercentSlowdownUnderTwoPercentNoiseIsSlowerAtLeast990Of1000) {
  const Tally t = run_trials(1.10, 0.02, 12);
  EXPECT_GE(t.slower, 990) << "same " << t.same << " unsure " << t.unsure;
}

TEST(StatsCompare, OnePercentChangeUnderTwoPercentNoiseIsNeverSlower) {
  const Tally t = run_trials(1.01, 0.02, 13);
  EXPECT_EQ(t.slower, 0);
  EXPECT_EQ(t.faster, 0);
}

TEST(StatsCompare, TenPercentSpeedupIsFaster) {
  const Tally t = run_trials(0.90, 0.02, 14);
  EXPECT_GE(t.faster, 990);
  EXPECT_EQ(t.slower, 0);
}

TEST(StatsCompare, OccasionalOutliersDoNotMakeIdenticalKernelsSlower) {
  // 5% of launches hit a 3x stall (preemption, clock dip): medians and ranks shrug it off.
  std::mt19937_64 rng(15);
  std::bernoulli_distribution stall(0.05);
  int slower = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto base = normal_samples(rng, 40, 100.0, 0.02);
    auto head = normal_samples(rng, 40, 100.0, 0.02);
    for (double& x : base) x *= stall(rng) ? 3.0 : 1.0;
    for (double& x : head) x *= stall(rng) ? 3.0 : 1.0;
    CompareOptions options;
    options.bootstrap.iterations = 500;
    slower += compare(base, head, options).verdict == Verdict::slower ? 1 : 0;
  }
  EXPECT_EQ(slower, 0);
}

TEST(StatsCompare, SmallAbsoluteChangeOnAShortKernelIsNotSlower) {
  // 10% of 5 us is 0.5 us, under the 2 us minimum absolute change.
  std::mt19937_64 rng(5);
  const auto base = normal_samples(rng, 40, 5.0, 0.02);
  const auto head = normal_samples(rng, 40, 5.5, 0.02);
  const Comparison c = compare(base, head);
  EXPECT_NE(c.verdict, Verdict::slower) << c.reason;
  EXPECT_NEAR(c.threshold, 0.4, 1e-2);
}

TEST(StatsCompare, NoisyMaterialLookingChangeIsUnsure) {
  // 3 samples a side with 30% noise: nothing can be concluded.
  const std::vector<double> base{100, 140, 80};
  const std::vector<double> head{130, 90, 150};
  const Comparison c = compare(base, head);
  EXPECT_EQ(c.verdict, Verdict::unsure) << c.reason;
  // Enough samples but very noisy: the interval reaches beyond the material band.
  std::mt19937_64 rng(6);
  const auto b2 = normal_samples(rng, 10, 100.0, 0.30);
  const auto h2 = normal_samples(rng, 10, 104.0, 0.30);
  EXPECT_EQ(compare(b2, h2).verdict, Verdict::unsure);
}

TEST(StatsCompare, EvidenceIsReported) {
  std::mt19937_64 rng(7);
  const auto base = normal_samples(rng, 40, 100.0, 0.02);
  const auto head = normal_samples(rng, 40, 120.0, 0.02);
  const Comparison c = compare(base, head);
  EXPECT_EQ(c.verdict, Verdict::slower);
  EXPECT_NEAR(c.ratio, 1.2, 0.02);
  EXPECT_LT(c.p_value, 1e-6);
  EXPECT_GT(c.ratio_ci.low, 1.0);
  EXPECT_EQ(c.reason, "material change >= 5.0%, alpha 0.05");
  EXPECT_STREQ(to_string(c.verdict), "SLOWER");
}

}  // namespace
}  // namespace kev::stats
