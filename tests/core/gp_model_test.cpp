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

// Block sizes 16..256 in steps of 16, where powers of two run fast and the others slow
// (as in recorded convolution spaces): trained on the smaller half, the features predict
// that 256 is fast and 240 slow; value ranks alone cannot tell them apart.
TEST(GpModelTest, PowerOfTwoFeaturesPredictUnseenPowersOfTwo) {
  std::vector<Value> sizes;
  for (std::int64_t v = 16; v <= 256; v += 16) sizes.emplace_back(v);
  const std::vector<Dimension> dims = {{"BLOCK", sizes}};
  auto time_of = [&](std::uint32_t rank) {
    const auto v = *sizes[rank].as_int();
    return (v & (v - 1)) == 0 ? 1.0 : 3.0;
  };
  const Point p256{15}, p240{14};
  double gap[2] = {0, 0};
  for (const bool features : {false, true}) {
    GpModel gp(dims, 1, features);
    for (std::uint32_t r = 0; r < 9; ++r) gp.add({r}, std::log(time_of(r)));
    gp.fit();
    gap[features] = gp.predict(p240).mean - gp.predict(p256).mean;
  }
  EXPECT_GT(gap[1], 0.5);  // the features: 240 predicted well above 256 (log 3 = 1.1 apart)
  EXPECT_LT(std::abs(gap[0]), 0.25);  // ranks alone: neighbours predicted alike
}

TEST(GpModelTest, PowerOfTwoFeaturesLeaveOtherParametersAsRanks) {
  // Values all powers of two, or not integers: no extra coordinates, the same predictions.
  std::vector<Value> powers, reals;
  for (std::int64_t v = 1; v <= 64; v *= 2) powers.emplace_back(v);
  for (int v = 0; v < 7; ++v) reals.emplace_back(0.5 + v);
  const std::vector<Dimension> dims = {{"P", powers}, {"R", reals}};
  GpModel plain(dims, 1, false), featured(dims, 1, true);
  for (std::uint32_t a = 0; a < 7; a += 2)
    for (std::uint32_t b = 0; b < 7; b += 3) {
      const double y = 0.1 * a + 0.2 * b;
      plain.add({a, b}, y);
      featured.add({a, b}, y);
    }
  plain.fit();
  featured.fit();
  for (const Point& p : {Point{1, 1}, Point{5, 4}, Point{6, 6}}) {
    EXPECT_DOUBLE_EQ(plain.predict(p).mean, featured.predict(p).mean);
    EXPECT_DOUBLE_EQ(plain.predict(p).sd, featured.predict(p).sd);
  }
}

}  // namespace
}  // namespace kev
