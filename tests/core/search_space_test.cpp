#include <gtest/gtest.h>

#include "core/recorded_space.h"
#include "search_fixture.h"

namespace kev {
namespace {

TEST(SearchSpaceTest, TotalIsTheProductOfCardinalities) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  EXPECT_EQ(space.total(), 4u * 5u * 4u);
  EXPECT_EQ(space.size(), 4u * 5u * 4u - 4u);
}

TEST(SearchSpaceTest, NeighboursChangeOneDimensionAndSkipInvalidPoints) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  // {3,3,0}: A has 3 others, B has 4 others but {3,4,0} is absent, C has 3 others.
  const auto all = space.neighbours({3, 3, 0});
  EXPECT_EQ(all.size(), 3u + 3u + 3u);
  for (const auto& q : all) {
    int changed = 0;
    for (std::size_t d = 0; d < 3; ++d) changed += q[d] != Point{3, 3, 0}[d] ? 1 : 0;
    EXPECT_EQ(changed, 1);
    EXPECT_TRUE(space.contains(q));
  }
  const auto adjacent = space.neighbours({3, 3, 0}, true);
  // A: 2 only; B: 2 only ({3,4,0} absent); C: 1.
  EXPECT_EQ(adjacent, (std::vector<Point>{{2, 3, 0}, {3, 2, 0}, {3, 3, 1}}));
}

TEST(SearchSpaceTest, ParamsRoundTripAndKey) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  const Point p{2, 1, 0};
  const ParamSet params = space.to_params(p);
  EXPECT_EQ(params.at("A"), Value(4));
  EXPECT_EQ(params.at("B"), Value(64));
  EXPECT_EQ(space.from_params(params), p);
  EXPECT_EQ(space.key(p), "A=4,B=64,C=0");
  ParamSet as_double = params;
  as_double["B"] = Value(64.0);  // a recording may spell integers as floats
  EXPECT_EQ(space.from_params(as_double), p);
  ParamSet unknown = params;
  unknown["B"] = Value(65);
  EXPECT_FALSE(space.from_params(unknown));
  ParamSet missing = params;
  missing.erase("C");
  EXPECT_FALSE(space.from_params(missing));
}

TEST(RecordedSpaceTest, SamplesOnlyRecordedPoints) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    const auto p = space.sample(rng);
    ASSERT_TRUE(p);
    EXPECT_TRUE(space.contains(*p));
    EXPECT_NE(rec.find(*p), nullptr);
  }
  std::size_t visited = 0;
  space.for_each([&](const Point&) { return ++visited < 10; });
  EXPECT_EQ(visited, 10u);
  EXPECT_FALSE(space.contains({3, 4, 0}));
}

TEST(RecordingTest, LastRecordWinsAndOptimumIsTheFastestPassed) {
  auto rec = testing::synthetic_recording();
  EXPECT_DOUBLE_EQ(*rec.optimum_us(), 10.0);  // A=4, B=256, C=0
  Outcome faster;
  faster.disposition = Disposition::passed;
  faster.time_us = 5.0;
  const auto before = rec.points().size();
  rec.add({2, 3, 0}, faster);
  EXPECT_EQ(rec.points().size(), before);
  EXPECT_DOUBLE_EQ(*rec.optimum_us(), 5.0);
  EXPECT_EQ(rec.count(Disposition::compile_failed), 5u);
}

}  // namespace
}  // namespace kev
