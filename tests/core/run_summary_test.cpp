// From timed shapes to a run's outcome: bandwidth against the ceilings, geometric means.
#include "core/run_summary.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kev {
namespace {

DeviceInfo h200() {
  DeviceInfo d;
  d.copy_gbps = 4000.0;
  d.read_gbps = 4400.0;
  return d;
}

TEST(RunSummary, BandwidthFromMetricsBytes) {
  ProblemResult p;
  p.time_us = 100.0;
  apply_bandwidth(p, std::int64_t{200'000'000}, h200(), 1.10);  // 2000 GB/s
  ASSERT_TRUE(p.gbps);
  EXPECT_DOUBLE_EQ(*p.gbps, 2000.0);
  EXPECT_DOUBLE_EQ(*p.copy_fraction, 0.5);
  EXPECT_EQ(p.disposition, Disposition::passed);
}

TEST(RunSummary, FasterThanTheCeilingIsSuspicious) {
  ProblemResult p;
  p.time_us = 100.0;
  apply_bandwidth(p, std::int64_t{500'000'000}, h200(), 1.10);  // 5000 > 4400 * 1.1
  EXPECT_EQ(p.disposition, Disposition::invalid);
  EXPECT_NE(p.detail.find("suspicious: 5000 GB/s"), std::string::npos) << p.detail;
  EXPECT_NE(p.detail.find("ceiling 4400 GB/s (margin 1.1)"), std::string::npos) << p.detail;
  ProblemResult within;
  within.time_us = 100.0;
  apply_bandwidth(within, std::int64_t{480'000'000}, h200(), 1.10);  // 4800 < 4840
  EXPECT_EQ(within.disposition, Disposition::passed);
}

TEST(RunSummary, NoBytesOrNoTimeNoBandwidth) {
  ProblemResult p;
  p.time_us = 100.0;
  apply_bandwidth(p, std::nullopt, h200(), 1.10);
  EXPECT_FALSE(p.gbps);
  ProblemResult untimed;
  apply_bandwidth(untimed, std::int64_t{1000}, h200(), 1.10);
  EXPECT_FALSE(untimed.gbps);
  ProblemResult no_ceilings;
  no_ceilings.time_us = 1.0;
  apply_bandwidth(no_ceilings, std::int64_t{1'000'000'000'000}, DeviceInfo{}, 1.10);
  EXPECT_EQ(no_ceilings.disposition, Disposition::passed);
  EXPECT_FALSE(no_ceilings.copy_fraction);
}

ProblemResult timed(double us, double low, double high) {
  ProblemResult p;
  p.timed = true;
  p.time_us = us;
  p.ci_low_us = low;
  p.ci_high_us = high;
  p.samples_us = {us, us};
  return p;
}

TEST(RunSummary, GeometricMeanOverShapes) {
  RunReport r;
  r.problems = {timed(10.0, 8.0, 12.0), timed(40.0, 32.0, 48.0)};
  ProblemResult validated;  // verified only: no time, not in the mean
  r.problems.push_back(validated);
  summarize_passed(r);
  EXPECT_EQ(r.outcome.disposition, Disposition::passed);
  EXPECT_NEAR(*r.outcome.time_us, 20.0, 1e-9);
  EXPECT_NEAR(*r.outcome.ci_low_us, 16.0, 1e-9);
  EXPECT_NEAR(*r.outcome.ci_high_us, 24.0, 1e-9);
  EXPECT_TRUE(r.outcome.samples_us.empty());  // several shapes: no single sample list
  EXPECT_TRUE(r.outcome.detail.empty());
}

TEST(RunSummary, OneTimedShapeKeepsItsSamplesAndEarlyStopsAreSaid) {
  RunReport r;
  r.problems = {timed(10.0, 9.0, 11.0)};
  r.problems[0].stopped_early = true;
  r.problems[0].ci_high_us.reset();  // a missing bound is the time itself
  summarize_passed(r);
  EXPECT_DOUBLE_EQ(*r.outcome.ci_high_us, 10.0);
  EXPECT_EQ(r.outcome.samples_us, (std::vector<double>{10.0, 10.0}));
  EXPECT_EQ(r.outcome.detail, "timing stopped early: clearly slower than the best so far");
  RunReport verify_only;
  verify_only.problems = {ProblemResult{}};
  summarize_passed(verify_only);
  EXPECT_EQ(verify_only.outcome.disposition, Disposition::passed);
  EXPECT_FALSE(verify_only.outcome.time_us);
}

// Seen on the H200: "problem K=4096,M=4096,N=4096: problem K=4096,M=4096,N=4096, verification
// round 1: ..." (the verifier's detail already names its problem).
TEST(RunSummary, AFailedShapeIsNamedOnce) {
  ProblemResult shape;
  shape.problem = "K=4096,M=4096,N=4096";
  shape.detail = "problem K=4096,M=4096,N=4096, verification round 1: output 'C' wrong";
  EXPECT_EQ(failed_shape_detail(shape), shape.detail);
  shape.detail = "launch failed: too many resources requested";
  EXPECT_EQ(failed_shape_detail(shape),
            "problem K=4096,M=4096,N=4096: launch failed: too many resources requested");
  shape.problem = "n=1";  // a prefix of another problem's text is not its name
  shape.detail = "problem n=10, timed launch 3: wrong";
  EXPECT_EQ(failed_shape_detail(shape), "problem n=1: problem n=10, timed launch 3: wrong");
}

}  // namespace
}  // namespace kev
