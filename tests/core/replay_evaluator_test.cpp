#include "core/replay_evaluator.h"

#include <gtest/gtest.h>

#include "search_fixture.h"

namespace kev {
namespace {

TEST(ReplayEvaluatorTest, ReturnsRecordedOutcomes) {
  const auto rec = testing::synthetic_recording();
  ReplayEvaluator evaluator(rec);
  const Outcome ok = evaluator.evaluate({2, 3, 0});
  EXPECT_TRUE(ok.passed());
  EXPECT_DOUBLE_EQ(*ok.time_us, 10.0);
  EXPECT_EQ(evaluator.evaluate({0, 0, 2}).disposition, Disposition::compile_failed);
  const Outcome absent = evaluator.evaluate({3, 4, 0});
  EXPECT_EQ(absent.disposition, Disposition::invalid);
  EXPECT_FALSE(absent.time_us);
}

TEST(ReplayEvaluatorTest, NoiseDrawsRecordedRepeatsDeterministically) {
  const auto rec = testing::synthetic_recording();
  ReplayEvaluator a(rec, 42), b(rec, 42);
  const auto& samples = rec.find({1, 1, 1})->samples_us;
  bool differed_from_mean = false;
  for (int i = 0; i < 20; ++i) {
    const double ta = *a.evaluate({1, 1, 1}).time_us;
    EXPECT_DOUBLE_EQ(ta, *b.evaluate({1, 1, 1}).time_us);
    EXPECT_NE(std::find(samples.begin(), samples.end(), ta), samples.end());
    differed_from_mean |= ta != *rec.find({1, 1, 1})->time_us;
  }
  EXPECT_TRUE(differed_from_mean);
}

}  // namespace
}  // namespace kev
