#include "core/gp_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kev {
namespace {

// Three parameters of `values` values each and one of a single value (which drops out).
std::vector<Dimension> dims_of(std::uint32_t values) {
  std::vector<Value> all;
  for (std::uint32_t v = 0; v < values; ++v) all.emplace_back(static_cast<std::int64_t>(v));
  return {{"A", all}, {"B", all}, {"C", all}, {"FIXED", {Value(std::int64_t{1})}}};
}

// A smooth bowl with its minimum at (2, 5, 7).
double bowl(const Point& p) {
  const double a = p[0] - 2.0, b = p[1] - 5.0, c = p[2] - 7.0;
  return 1.0 + 0.05 * (a * a + b * b + c * c);
}

std::vector<Point> grid(std::uint32_t values) {
  std::vector<Point> out;
  for (std::uint32_t a = 0; a < values; ++a)
    for (std::uint32_t b = 0; b < values; ++b)
      for (std::uint32_t c = 0; c < values; ++c) out.push_back({a, b, c, 0});
  return out;
}

TEST(GpModelTest, InterpolatesItsPointsAndIsLessSureFarFromThem) {
  GpModel gp(dims_of(10), 1);
  std::vector<Point> train;  // a lattice over the lower half of the values
  for (std::uint32_t a = 0; a <= 4; a += 2)
    for (std::uint32_t b = 0; b <= 4; b += 2)
      for (std::uint32_t c = 0; c <= 4; c += 2) train.push_back({a, b, c, 0});
  for (const auto& p : train) gp.add(p, bowl(p));
  EXPECT_EQ(gp.factored(), 0u);
  gp.fit();
  EXPECT_EQ(gp.factored(), train.size());
  const double far_sd = gp.predict({9, 9, 9, 0}).sd;
  for (const auto& p : train) {
    const auto pred = gp.predict(p);
    EXPECT_NEAR(pred.mean, bowl(p), 0.05);
    EXPECT_LT(pred.sd, far_sd / 2);
  }
}

TEST(GpModelTest, UpdateTakesInPointsAddedAfterAFit) {
  GpModel gp(dims_of(10));
  for (const auto& p : std::vector<Point>{{0, 0, 0, 0}, {9, 9, 9, 0}, {4, 4, 4, 0}})
    gp.add(p, bowl(p));
  gp.fit();
  const Point added{2, 5, 7, 0};
  gp.add(added, bowl(added));
  EXPECT_EQ(gp.factored(), 3u);
  gp.update();
  EXPECT_EQ(gp.factored(), 4u);
  EXPECT_NEAR(gp.predict(added).mean, bowl(added), 0.1);
}

TEST(GpModelTest, ExpectedImprovementFindsTheBowlsMinimumRegion) {
  GpModel gp(dims_of(10), 1);
  Rng rng(7);
  const auto all = grid(10);
  std::uniform_int_distribution<std::size_t> pick(0, all.size() - 1);
  double best = INFINITY;
  for (int i = 0; i < 30; ++i) {
    const Point& p = all[pick(rng)];
    gp.add(p, bowl(p));
    best = std::min(best, bowl(p));
  }
  gp.fit();
  const auto chosen = all[gp.best_expected_improvement(all, best)];
  // Within 2 of the minimum in every coordinate (a bowl value the best 3% of the grid beat).
  EXPECT_LE(std::abs(static_cast<int>(chosen[0]) - 2), 2);
  EXPECT_LE(std::abs(static_cast<int>(chosen[1]) - 5), 2);
  EXPECT_LE(std::abs(static_cast<int>(chosen[2]) - 7), 2);
}

TEST(GpModelTest, TheBestExpectedImprovementIsThatOfEveryPredictionCompared) {
  GpModel gp(dims_of(6), 1);
  const auto all = grid(6);
  double best = INFINITY;
  for (std::size_t i = 0; i < all.size(); i += 13) {
    gp.add(all[i], std::log(bowl(all[i])));
    best = std::min(best, std::log(bowl(all[i])));
  }
  gp.fit();
  std::size_t expected = 0;
  double top = -1;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const double ei = expected_improvement(gp.predict(all[i]), best);
    if (ei > top) {
      top = ei;
      expected = i;
    }
  }
  EXPECT_EQ(gp.best_expected_improvement(all, best), expected);
}

TEST(GpModelTest, ExpectedImprovementGrowsWithTheGainAndTheSpread) {
  EXPECT_DOUBLE_EQ(expected_improvement({1.0, 0.0}, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(expected_improvement({3.0, 0.0}, 2.0), 0.0);
  EXPECT_GT(expected_improvement({3.0, 1.0}, 2.0), 0.0);
  EXPECT_GT(expected_improvement({3.0, 2.0}, 2.0), expected_improvement({3.0, 1.0}, 2.0));
  EXPECT_GT(expected_improvement({1.0, 1.0}, 2.0), expected_improvement({1.5, 1.0}, 2.0));
}

}  // namespace
}  // namespace kev
