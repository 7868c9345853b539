#include "core/run_measurement.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kev {
namespace {

ProblemResult timed_problem(std::string name, std::vector<double> samples,
                            std::optional<double> copy_fraction = std::nullopt) {
  ProblemResult p;
  p.problem = std::move(name);
  p.timed = true;
  p.samples_us = std::move(samples);
  p.copy_fraction = copy_fraction;
  return p;
}

TEST(RunMeasurement, OneProblemGivesItsSamplesAndFraction) {
  RunReport r;
  r.outcome.disposition = Disposition::passed;
  r.problems.push_back(timed_problem("n=1024", {10.0, 11.0, 12.0}, 0.8));
  ProblemResult validate_only;
  validate_only.problem = "n=7";
  validate_only.samples_us = {99.0};
  r.problems.push_back(validate_only);
  const Measurement m = measurement_from(r);
  EXPECT_EQ(m.disposition, Disposition::passed);
  EXPECT_EQ(m.samples_us, (std::vector<double>{10.0, 11.0, 12.0}));
  ASSERT_TRUE(m.roofline_fraction);
  EXPECT_DOUBLE_EQ(*m.roofline_fraction, 0.8);
}

TEST(RunMeasurement, SeveralProblemsCombineSampleBySampleGeometrically) {
  RunReport r;
  r.outcome.disposition = Disposition::passed;
  r.problems.push_back(timed_problem("a", {4.0, 9.0, 1.0, 5.0}, 0.5));
  r.problems.push_back(timed_problem("b", {1.0, 1.0, 4.0}, 0.8));
  const Measurement m = measurement_from(r);
  ASSERT_EQ(m.samples_us.size(), 3u);  // the shortest problem's count
  EXPECT_DOUBLE_EQ(m.samples_us[0], 2.0);
  EXPECT_DOUBLE_EQ(m.samples_us[1], 3.0);
  EXPECT_DOUBLE_EQ(m.samples_us[2], 2.0);
  ASSERT_TRUE(m.roofline_fraction);
  EXPECT_NEAR(*m.roofline_fraction, std::sqrt(0.4), 1e-12);
}

TEST(RunMeasurement, FailedRunKeepsTheRunnersDispositionAndDetail) {
  RunReport r;
  r.outcome.disposition = Disposition::incorrect;
  r.outcome.detail = "problem n=1024: out[17] = 3 (expected 2)";
  r.problems.push_back(timed_problem("n=1024", {10.0}));
  const Measurement m = measurement_from(r);
  EXPECT_EQ(m.disposition, Disposition::incorrect);
  EXPECT_EQ(m.detail, "problem n=1024: out[17] = 3 (expected 2)");
  EXPECT_TRUE(m.samples_us.empty());
  EXPECT_FALSE(m.roofline_fraction);
}

TEST(RunMeasurement, PassedWithoutProblemSamplesFallsBackToTheOutcomes) {
  RunReport r;
  r.outcome.disposition = Disposition::passed;
  r.outcome.samples_us = {7.0, 8.0};
  const Measurement m = measurement_from(r);
  EXPECT_EQ(m.samples_us, (std::vector<double>{7.0, 8.0}));
  EXPECT_FALSE(m.roofline_fraction);
}

}  // namespace
}  // namespace kev
