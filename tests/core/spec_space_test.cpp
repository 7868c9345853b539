#include "core/spec_space.h"

#include <gtest/gtest.h>

#include <map>

#include "spec_fixture.h"
#include "support/cpu_time.h"

namespace kev {
namespace {

using testing::expr;
using testing::huge_spec;
using testing::param;
using testing::range;

Problem problem(std::map<std::string, std::int64_t> dims) { return Problem{std::move(dims), {}}; }

KernelSpec softmax_like() {
  KernelSpec spec;
  spec.params = {param("BLOCK", {128, 256, 512, 1024}), param("VEC", {1, 2, 4})};
  spec.constraints = {expr("BLOCK * VEC <= 2048"), expr("cols % VEC == 0")};
  return spec;
}

TEST(SpecSpace, CountsUnderParameterConstraints) {
  KernelSpec spec = softmax_like();
  SpecSpace space(spec, {});
  EXPECT_EQ(space.points(), 12u);
  // BLOCK*VEC <= 2048 excludes (1024,4) only; the problem constraint is not checked.
  EXPECT_EQ(space.size(), 11u);
  EXPECT_TRUE(space.depends_on_problems());  // mentions cols
  EXPECT_TRUE(space.contains({0, 2}));
  EXPECT_FALSE(space.contains({3, 2}));
  EXPECT_FALSE(space.contains({4, 0}));  // index out of range
  EXPECT_FALSE(space.contains({0}));     // wrong arity
}

TEST(SpecSpace, ProblemConstraintsAreCheckedPerProblem) {
  KernelSpec spec = softmax_like();
  SpecSpace odd(spec, {problem({{"rows", 3}, {"cols", 1002}})});
  EXPECT_TRUE(odd.depends_on_problems());
  EXPECT_EQ(odd.size(), 8u);  // VEC 1 or 2 with any BLOCK
  SpecSpace even(spec, {problem({{"rows", 3}, {"cols", 1024}})});
  EXPECT_EQ(even.size(), 11u);
  SpecSpace prime(spec, {problem({{"cols", 1001}})});
  EXPECT_EQ(prime.size(), 4u);
  // Every problem must hold: intersection.
  SpecSpace both(spec, {problem({{"cols", 1002}}), problem({{"cols", 1001}})});
  EXPECT_EQ(both.size(), 4u);
  // A problem that lacks a dimension a constraint needs admits no point.
  SpecSpace missing(spec, {problem({{"rows", 3}})});
  EXPECT_EQ(missing.size(), 0u);
  EXPECT_TRUE(missing.empty());
  Rng rng(1);
  EXPECT_FALSE(missing.sample(rng).has_value());
}

TEST(SpecSpace, ForEachVisitsValidPointsInMixedRadixOrder) {
  KernelSpec spec;
  spec.params = {param("A", {1, 2}), param("B", {1, 2, 3})};
  spec.constraints = {expr("A != B")};
  SpecSpace space(spec, {});
  std::vector<Point> seen;
  space.for_each([&](const Point& p) {
    seen.push_back(p);
    return true;
  });
  EXPECT_EQ(seen, (std::vector<Point>{{0, 1}, {0, 2}, {1, 0}, {1, 2}}));
  EXPECT_EQ(space.point_at(5), (Point{1, 2}));
  int visits = 0;
  space.for_each([&](const Point&) { return ++visits < 2; });
  EXPECT_EQ(visits, 2);
}

TEST(SpecSpace, UnevaluableConstraintsDoNotHold) {
  KernelSpec spec;
  spec.params = {param("A", {0, 1, 2})};
  spec.constraints = {expr("10 / A >= 5")};
  SpecSpace space(spec, {});
  EXPECT_EQ(space.size(), 2u);  // A=0 divides by zero: not a valid point
  KernelSpec strings;
  strings.params = {ParamSpec{"T", {Value(std::string("float")), Value(2)}, {}}};
  strings.constraints = {expr("T > 1")};
  SpecSpace mixed(strings, {});
  EXPECT_EQ(mixed.size(), 1u);
}

TEST(SpecSpace, SamplesRoughlyUniformly) {
  KernelSpec spec;
  spec.params = {param("A", range(4)), param("B", range(4))};
  spec.constraints = {expr("A <= B")};  // 10 valid points
  SpecSpace space(spec, {});
  ASSERT_EQ(space.size(), 10u);
  Rng rng(42);
  std::map<Point, int> hits;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    auto p = space.sample(rng);
    ASSERT_TRUE(p.has_value());
    ASSERT_TRUE(space.contains(*p));
    ++hits[*p];
  }
  EXPECT_EQ(hits.size(), 10u);
  for (const auto& [p, n] : hits) {
    EXPECT_GT(n, draws / 10 * 8 / 10);
    EXPECT_LT(n, draws / 10 * 12 / 10);
  }
}

TEST(SpecSpace, SamplesVerySparseSpaces) {
  KernelSpec spec;
  spec.params = {param("A", range(1000)), param("B", range(1000))};
  spec.constraints = {expr("A == 17 && B % 500 == 3")};  // 2 valid points of 10^6
  SpecSpace space(spec, {});
  Rng rng(7);
  std::map<Point, int> hits;
  for (int i = 0; i < 200; ++i) {
    auto p = space.sample(rng);
    ASSERT_TRUE(p.has_value());
    ++hits[*p];
  }
  EXPECT_EQ(hits.size(), 2u);
  EXPECT_TRUE(hits.count(Point{17, 3}));
  EXPECT_TRUE(hits.count(Point{17, 503}));
}

TEST(SpecSpace, TenMillionPointsCountedAndSampledQuickly) {
  KernelSpec spec;
  spec.params = {param("A", range(100)), param("B", range(100)), param("C", range(1000))};
  spec.constraints = {expr("A * B <= 2500"), expr("(A + C) % 7 != 3")};
  // Both constraints read A: one group of 10^7 points, about 6 * 10^6 search steps.
  SpecSpace space(spec, {}, 1u << 24);
  EXPECT_EQ(space.points(), 10'000'000u);
  const test_support::ThreadCpuTimer timer;
  Rng rng(3);
  for (int i = 0; i < 1000; ++i) {
    auto p = space.sample(rng);
    ASSERT_TRUE(p.has_value());
    ASSERT_TRUE(space.contains(*p));
  }
  // Sampling never enumerates a dense space.
  EXPECT_LT(timer.seconds(), 0.5);
  const test_support::ThreadCpuTimer counting;
  std::uint64_t expected = 0;
  for (std::int64_t a = 0; a < 100; ++a)
    for (std::int64_t b = 0; b < 100; ++b)
      if (a * b <= 2500)
        for (std::int64_t c = 0; c < 1000; ++c) expected += (a + c) % 7 != 3;
  EXPECT_EQ(space.size(), expected);
  // Debug builds included: counting 10^7 points must stay interactive.
  EXPECT_LT(counting.seconds(), 20.0);
  EXPECT_EQ(space.size(), expected);  // cached
}

constexpr std::uint64_t k40To8 = 6'553'600'000'000ULL;    // 40^8
constexpr std::uint64_t kHugePoints = 2 * k40To8 * 1600;  // 2 * 40^10

TEST(SpecSpace, CountsAHugeUnconstrainedSpaceWithoutEnumeratingIt) {
  const test_support::ThreadCpuTimer timer;
  SpecSpace space(huge_spec(), {});
  EXPECT_EQ(space.points(), kHugePoints);
  const SpaceCount count = space.count();
  EXPECT_TRUE(count.exact);
  EXPECT_EQ(count.value, kHugePoints);
  EXPECT_EQ(space.size(), kHugePoints);
  EXPECT_FALSE(space.empty());
  Rng rng(1);
  for (int i = 0; i < 100; ++i) {
    auto p = space.sample(rng);
    ASSERT_TRUE(p.has_value());
    EXPECT_TRUE(space.contains(*p));
  }
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(SpecSpace, CountsParametersLinkedByConstraintsApartFromTheRest) {
  const test_support::ThreadCpuTimer timer;
  // A == 2 leaves half; P0 + P1 <= 10 links P0 and P1 only: 66 of their 1600 pairs.
  SpecSpace space(huge_spec({"A == 2", "P0 + P1 <= 10"}), {});
  const SpaceCount count = space.count();
  EXPECT_TRUE(count.exact);
  EXPECT_EQ(count.value, 66 * k40To8);
  // A constraint excluding everything is found to be empty at once.
  SpecSpace none(huge_spec({"P3 * P7 > 5000"}), {});
  EXPECT_EQ(none.count().value, 0u);
  EXPECT_TRUE(none.count().exact);
  EXPECT_TRUE(none.empty());
  Rng rng(2);
  EXPECT_FALSE(none.sample(rng).has_value());
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(SpecSpace, SamplesAHugeSpaceWhoseConstraintsAdmitFewValues) {
  const test_support::ThreadCpuTimer timer;
  // 1 in 3200 points is valid: rejection over the whole space fails, per linked group not.
  SpecSpace space(huge_spec({"A == 2", "P4 == 7 && P9 == 3"}), {});
  EXPECT_EQ(space.count().value, k40To8);
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    auto p = space.sample(rng);
    ASSERT_TRUE(p.has_value());
    ASSERT_TRUE(space.contains(*p));
    EXPECT_EQ((*p)[0], 1u);
    EXPECT_EQ((*p)[5], 7u);
    EXPECT_EQ((*p)[10], 3u);
  }
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(SpecSpace, ACountTooCostlyToFinishIsALowerBound) {
  const test_support::ThreadCpuTimer timer;
  // One constraint reads every parameter: nothing splits, and 2 * 40^10 leaves cannot be
  // visited. The count stops after its step budget and says so.
  SpecSpace space(huge_spec({"A + P0 + P1 + P2 + P3 + P4 + P5 + P6 + P7 + P8 + P9 != 3"}), {},
                  100'000);
  const SpaceCount count = space.count();
  EXPECT_FALSE(count.exact);
  EXPECT_GT(count.value, 0u);
  EXPECT_LT(count.value, kHugePoints);
  EXPECT_EQ(to_string(count), "at least " + std::to_string(count.value));
  EXPECT_EQ(to_string(SpaceCount{12, true}), "12");
  EXPECT_FALSE(space.empty());
  Rng rng(4);
  auto p = space.sample(rng);
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(space.contains(*p));
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(SpecSpace, NextAfterSkipsWholeInvalidSubtrees) {
  const test_support::ThreadCpuTimer timer;
  // A == 2: the first 40^10 points in order are all invalid.
  SpecSpace space(huge_spec({"A == 2", "P9 % 20 == 1"}), {});
  auto first = space.next_after(std::nullopt);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, (Point{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  auto second = space.next_after(first);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(*second, (Point{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 21}));
  auto third = space.next_after(second);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(*third, (Point{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}));
  // The last valid point has no successor; an invalid point resumes at the next valid one.
  const Point last{1, 39, 39, 39, 39, 39, 39, 39, 39, 39, 21};
  EXPECT_FALSE(space.next_after(last).has_value());
  EXPECT_EQ(space.next_after(Point{0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}), first);
  EXPECT_LT(timer.seconds(), 0.5);
}

TEST(SpecSpace, NextAfterFollowsForEachOrder) {
  KernelSpec spec;
  spec.params = {param("A", {1, 2, 3}), param("B", {1, 2, 3})};
  spec.constraints = {expr("A != B"), expr("cols % A == 0")};
  SpecSpace space(spec, {problem({{"cols", 4}})});
  std::vector<Point> visited;
  space.for_each([&](const Point& p) {
    visited.push_back(p);
    return true;
  });
  std::vector<Point> stepped;
  for (auto p = space.next_after(std::nullopt); p; p = space.next_after(p)) stepped.push_back(*p);
  EXPECT_EQ(stepped, visited);
  EXPECT_EQ(visited.size(), 4u);  // A in {1, 2}, B != A
}

}  // namespace
}  // namespace kev
