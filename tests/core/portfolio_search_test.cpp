#include "core/portfolio_search.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <numeric>
#include <set>

#include "core/additive_model.h"
#include "core/moves.h"
#include "core/recorded_space.h"
#include "core/replay_evaluator.h"
#include "core/tuner.h"
#include "search_fixture.h"

namespace kev {
namespace {

// A recorded space with a smooth (additive) log time: every parameter has one best value.
Recording additive_recording(std::uint32_t values, std::size_t dims) {
  Recording rec;
  rec.kernel = "additive";
  const std::vector<Value> all{0, 1, 2, 3, 4, 5, 6, 7};  // values <= 8
  for (std::size_t d = 0; d < dims; ++d)
    rec.dims.push_back({"P" + std::to_string(d), {all.begin(), all.begin() + values}});
  Point p(dims, 0);
  for (;;) {
    double t = 10.0;
    for (std::size_t d = 0; d < dims; ++d) {
      const double off = static_cast<double>(p[d]) - static_cast<double>(d % values);
      t *= 1.0 + 0.3 * off * off;
    }
    Outcome out;
    out.disposition = Disposition::passed;
    out.time_us = t;
    rec.add(p, out);
    std::size_t d = 0;
    while (d < dims && ++p[d] == values) p[d++] = 0;
    if (d == dims) break;
  }
  return rec;
}

TEST(AdditiveModelTest, RanksAnAdditiveFunctionAfterAFewPoints) {
  const auto rec = additive_recording(5, 3);
  AdditiveModel model(rec.dims);
  EXPECT_EQ(model.size(), 0u);
  Rng rng(3);
  const RecordedSpace space(rec);
  for (int i = 0; i < 30; ++i) {
    const auto p = space.sample(rng);
    ASSERT_TRUE(p);
    model.add(*p, *rec.find(*p)->time_us);
  }
  model.fit();
  // The best point of the space is predicted faster than every other.
  const Point best{0, 1, 2};
  space.for_each([&](const Point& p) {
    if (p != best) {
      EXPECT_LT(model.predict(best), model.predict(p)) << space.key(p);
    }
    return true;
  });
}

TEST(AdditiveModelTest, PredictsTheMeanLogTimeOfOneValueEverywhereBeforeAFit) {
  const auto rec = additive_recording(3, 2);
  AdditiveModel model(rec.dims);
  model.add({0, 0}, 100.0);
  model.add({1, 1}, 100.0);
  EXPECT_DOUBLE_EQ(model.predict({2, 2}), 0.0);  // nothing fitted yet
  model.fit();
  EXPECT_NEAR(model.predict({2, 2}), std::log(100.0), 1e-9);
}

TEST(AdditiveModelTest, PredictsValuesNotTriedYetFromTheTrendAlongTheValueOrder) {
  // Time grows with the first parameter's value; values 3 and 4 were never measured.
  const auto rec = additive_recording(5, 2);
  AdditiveModel model(rec.dims);
  for (std::uint32_t a = 0; a < 3; ++a)
    for (std::uint32_t b = 0; b < 5; ++b) model.add({a, b}, 10.0 * (1 + a));
  model.fit();
  EXPECT_LT(model.predict({2, 0}), model.predict({3, 0}));
  EXPECT_LT(model.predict({3, 0}), model.predict({4, 0}));
  EXPECT_LT(model.predict({0, 0}), model.predict({1, 0}));
}

TEST(MovesTest, GeneticChildrenAndPerturbedElitesAreValidAndUnseen) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  SearchState state(space, 5);
  EXPECT_FALSE(genetic_child(state, 20));  // no passed point yet
  EXPECT_FALSE(perturbed_elite(state, 4, 2, 3));
  for (std::size_t i = 0; i < rec.points().size(); i += 3)
    state.record(rec.points()[i].point, rec.points()[i].outcome);
  auto check = [&](const std::optional<Point>& p) {
    if (!p) return;
    EXPECT_TRUE(space.contains(*p));
    EXPECT_FALSE(state.seen(*p));
    state.mark_seen(*p);
  };
  for (int i = 0; i < 20; ++i) {
    check(genetic_child(state, 20));
    check(perturbed_elite(state, 4, 2, 3));
  }
}

PortfolioOptions options_with(int initial, int warmup) {
  PortfolioOptions o;
  o.initial_samples = initial;
  o.warmup = warmup;
  o.descent.adjacent_first = true;
  o.descent.resume_from_best = true;
  o.descent.random_restart = 0.2;
  return o;
}

// The options make_auto uses (core/strategy_auto.cpp): a spread-out start, a model phase of
// Gaussian-process picks and descent moves, in which global samples and genetic children get
// 10% each once 20 asks have not improved the best time (auto's model phase is 200 asks; 20
// here).
PortfolioOptions gp_options() {
  PortfolioOptions o = options_with(10, 40);
  o.maximin = true;
  o.gp = true;
  o.ard_passes = 1;
  o.power_of_two_features = true;
  o.failed_as_worst = true;
  o.model_phase = 20;
  o.model_share = 0.7;
  o.pool_random = 300;
  o.pool_elites = 10;
  o.model_floor = 0.1;
  o.model_patience = 20;
  return o;
}

// Asks and tells n points; `after_tell` runs after each tell.
void drive(
    PortfolioSearch& s, Evaluator& evaluator, int n,
    const std::function<void()>& after_tell = [] {}) {
  for (int i = 0; i < n; ++i) {
    auto p = s.ask();
    ASSERT_TRUE(p);
    s.tell(*p, evaluator.evaluate(*p));
    after_tell();
  }
}

TEST(PortfolioSearchTest, SharesKeepTheirFloorAndSumToOne) {
  const auto rec = additive_recording(6, 4);
  const RecordedSpace space(rec);
  ReplayEvaluator evaluator(rec);
  PortfolioSearch s(space, 1, options_with(10, 40));
  drive(s, evaluator, 300, [&] {
    const auto w = s.shares();
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-9);
    for (double x : w) EXPECT_GE(x, 0.05 - 1e-12);
  });
  const auto& n = s.answered();
  EXPECT_EQ(std::accumulate(n.begin(), n.end(), std::size_t{0}), 300u);
  for (std::size_t m = 0; m < PortfolioSearch::kMoves; ++m) EXPECT_GT(n[m], 0u) << m;
}

TEST(PortfolioSearchTest, StartsWithRandomSamplesThenDescends) {
  const auto rec = additive_recording(6, 4);
  const RecordedSpace space(rec);
  ReplayEvaluator evaluator(rec);
  PortfolioSearch s(space, 2, options_with(10, 40));
  drive(s, evaluator, 10);
  EXPECT_EQ(s.answered()[PortfolioSearch::global], 10u);
  // The next asks are one-parameter moves from the best initial sample.
  auto p = s.ask();
  ASSERT_TRUE(p);
  EXPECT_EQ(s.answered()[PortfolioSearch::descent], 1u);
}

TEST(PortfolioSearchTest, MaximinInitialSamplesAreFartherApartThanRandomOnes) {
  const auto rec = additive_recording(8, 4);
  const RecordedSpace space(rec);
  // The smallest squared distance (in value ranks) between two of the first 10 samples.
  auto closest_pair = [&](bool maximin, std::uint64_t seed) {
    PortfolioOptions o = options_with(10, 40);
    o.maximin = maximin;
    PortfolioSearch s(space, seed, o);
    std::vector<Point> ps;
    for (int i = 0; i < 10; ++i) ps.push_back(*s.ask());
    EXPECT_EQ(s.answered()[PortfolioSearch::global], 10u);
    double closest = INFINITY;
    for (std::size_t i = 0; i < ps.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) {
        double d = 0;
        for (std::size_t k = 0; k < ps[i].size(); ++k)
          d += std::pow(static_cast<double>(ps[i][k]) - static_cast<double>(ps[j][k]), 2);
        closest = std::min(closest, d);
      }
    return closest;
  };
  double spread = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    spread += closest_pair(true, seed);
    random += closest_pair(false, seed);
  }
  EXPECT_GT(spread, 2 * random);
}

TEST(PortfolioSearchTest, TheModelPhaseGoesToTheSurrogateAndTheDescent) {
  const auto rec = additive_recording(6, 4);
  const RecordedSpace space(rec);
  ReplayEvaluator evaluator(rec);
  for (const double share : {1.0, 0.5}) {
    PortfolioOptions o = gp_options();
    o.model_share = share;
    o.model_floor = 0.0;
    PortfolioSearch s(space, 3, o);
    drive(s, evaluator, 30);
    const auto& n = s.answered();
    EXPECT_EQ(n[PortfolioSearch::global], 10u);
    EXPECT_EQ(n[PortfolioSearch::surrogate] + n[PortfolioSearch::descent], 20u);
    if (share == 1.0) {
      EXPECT_EQ(n[PortfolioSearch::surrogate], 20u);
    } else {
      EXPECT_GT(n[PortfolioSearch::surrogate], 4u);
      EXPECT_GT(n[PortfolioSearch::descent], 4u);
    }
  }
}

// Asks n points and tells each a time: `improving` ones improve on the best, the others are slow.
// Returns the asks each move type answered.
std::array<std::size_t, PortfolioSearch::kMoves> drive_times(PortfolioSearch& s, int n,
                                                             bool improving, double& best) {
  const auto before = s.answered();
  for (int i = 0; i < n; ++i) {
    auto p = s.ask();
    EXPECT_TRUE(p);
    if (!p) break;
    Outcome out;
    out.disposition = Disposition::passed;
    out.time_us = improving ? (best *= 0.99) : 5000.0;
    s.tell(*p, out);
  }
  auto n_by = s.answered();
  for (std::size_t m = 0; m < PortfolioSearch::kMoves; ++m) n_by[m] -= before[m];
  return n_by;
}

TEST(PortfolioSearchTest, WithNoPatienceTheModelFloorHoldsThroughoutTheModelPhase) {
  // model_floor with model_patience 0: global samples and genetic children get model_floor
  // each of the model phase's asks, and the surrogate and the descent split the rest by
  // model_share (70% and 30%).
  const auto rec = additive_recording(8, 4);  // 4096 points
  const RecordedSpace space(rec);
  ReplayEvaluator evaluator(rec);
  PortfolioOptions o = gp_options();
  o.model_phase = 200;
  o.model_floor = 0.05;
  o.model_patience = 0;
  PortfolioSearch s(space, 5, o);
  drive(s, evaluator, 210);
  const auto& n = s.answered();
  EXPECT_EQ(std::accumulate(n.begin(), n.end(), std::size_t{0}), 210u);
  const std::size_t global = n[PortfolioSearch::global] - 10;  // less the initial samples
  // Expected 10 each (a binomial's 95% range is about 4..16).
  EXPECT_GE(global, 3u);
  EXPECT_LE(global, 20u);
  EXPECT_GE(n[PortfolioSearch::genetic], 3u);
  EXPECT_LE(n[PortfolioSearch::genetic], 20u);
  // Expected 126 and 54.
  EXPECT_GT(n[PortfolioSearch::surrogate], 100u);
  EXPECT_GT(n[PortfolioSearch::descent], 30u);
  EXPECT_GT(n[PortfolioSearch::surrogate], 2 * n[PortfolioSearch::descent]);
}

TEST(PortfolioSearchTest, AStalledModelPhaseHandsAShareToGlobalSamplesAndGeneticChildren) {
  // make_auto's portfolio: while every ask improves the best time, the model phase goes to the
  // Gaussian process and the descent only; once 20 asks in a row have not, global samples
  // and genetic children get 10% each.
  const auto rec = additive_recording(8, 4);  // 4096 points, more than auto's exhaustive 64
  const RecordedSpace space(rec);
  auto st = make_strategy("auto", space, 7);
  ASSERT_TRUE(st.ok());
  auto* s = dynamic_cast<PortfolioSearch*>(st->get());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name(), "auto");
  double best = 1000.0;
  const auto initial = drive_times(*s, 10, true, best);
  EXPECT_EQ(initial[PortfolioSearch::global], 10u);
  const auto improving = drive_times(*s, 80, true, best);
  EXPECT_EQ(improving[PortfolioSearch::global], 0u);
  EXPECT_EQ(improving[PortfolioSearch::genetic], 0u);
  EXPECT_GT(improving[PortfolioSearch::surrogate], improving[PortfolioSearch::descent]);
  // The first 20 slow asks: no stall yet.
  const auto waiting = drive_times(*s, 20, false, best);
  EXPECT_EQ(waiting[PortfolioSearch::global] + waiting[PortfolioSearch::genetic], 0u);
  // Then 80 more: expected 8 each.
  const auto stalled = drive_times(*s, 80, false, best);
  EXPECT_GE(stalled[PortfolioSearch::global], 2u);
  EXPECT_GE(stalled[PortfolioSearch::genetic], 2u);
  EXPECT_LE(stalled[PortfolioSearch::global] + stalled[PortfolioSearch::genetic], 32u);
  EXPECT_GT(stalled[PortfolioSearch::surrogate], stalled[PortfolioSearch::descent]);
  // An improving ask ends the stall. All of this stays inside the model phase (200 asks after
  // the 10 initial samples: 80 + 20 + 80 + 1 + 15 = 196), past which the portfolio's shares
  // give global samples and genetic children their floors again.
  drive_times(*s, 1, true, best);
  const auto again = drive_times(*s, 15, false, best);
  EXPECT_EQ(again[PortfolioSearch::global] + again[PortfolioSearch::genetic], 0u);
}

TEST(PortfolioSearchTest, TheGaussianProcessFindsTheOptimumOfASmoothSpaceInItsModelPhase) {
  const auto rec = additive_recording(8, 4);  // 4096 points
  const RecordedSpace space(rec);
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    ReplayEvaluator evaluator(rec);
    PortfolioOptions o = gp_options();
    o.model_phase = 50;
    o.model_share = 1.0;
    o.model_floor = 0.0;
    PortfolioSearch s(space, seed, o);
    double best = INFINITY;
    for (int i = 0; i < 60; ++i) {  // random sampling finds it in 60 of 4096 under 2% of the time
      auto p = s.ask();
      ASSERT_TRUE(p);
      const auto out = evaluator.evaluate(*p);
      best = std::min(best, *out.time_us);
      s.tell(*p, out);
    }
    EXPECT_EQ(s.answered()[PortfolioSearch::surrogate], 50u);
    if (best == *rec.optimum_us()) ++found;
  }
  EXPECT_GE(found, 4);
}

TEST(PortfolioSearchTest, MovesTheBudgetToTheMoveTypeThatPays) {
  // Whatever a move type proposes, only one type's points improve on the best time; the
  // asks move to it, and the others keep their floor.
  const auto rec = additive_recording(8, 4);
  const RecordedSpace space(rec);
  for (const auto paying :
       {PortfolioSearch::descent, PortfolioSearch::genetic, PortfolioSearch::surrogate}) {
    PortfolioSearch s(space, 4, options_with(10, 0));
    double best = 1000.0;
    std::array<std::size_t, PortfolioSearch::kMoves> late{};  // answers in the last 100 asks
    for (int i = 0; i < 200; ++i) {
      const auto before = s.answered();
      auto p = s.ask();
      ASSERT_TRUE(p);
      std::size_t m = 0;
      while (m < PortfolioSearch::kMoves && s.answered()[m] == before[m]) ++m;
      ASSERT_LT(m, PortfolioSearch::kMoves);
      if (i >= 100) ++late[m];
      Outcome out;
      out.disposition = Disposition::passed;
      out.time_us = (i < 10 || m == paying) ? (best *= 0.99) : 5000.0;
      s.tell(*p, out);
    }
    const auto w = s.shares();
    for (std::size_t m = 0; m < PortfolioSearch::kMoves; ++m)
      if (m != paying) {
        EXPECT_GT(w[paying], 3 * w[m]) << paying << " vs " << m;
        EXPECT_GT(late[paying], 3 * late[m]) << paying << " vs " << m;
      }
  }
}

TEST(PortfolioSearchTest, FindsTheOptimumOfASmoothSpaceFarSoonerThanRandomSampling) {
  const auto rec = additive_recording(8, 4);  // 4096 points
  const RecordedSpace space(rec);
  const double optimum = *rec.optimum_us();
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    ReplayEvaluator evaluator(rec);
    auto st = make_strategy("auto", space, seed);
    ASSERT_TRUE(st.ok());
    TuneRequest req;
    req.space = &space;
    req.strategy = st->get();
    req.evaluator = &evaluator;
    req.budget.evaluations = 150;  // random sampling finds it in 150 of 4096 under 4% of the time
    const auto result = run_tuner(std::move(req));
    ASSERT_TRUE(result.best);
    if (*result.best->outcome.time_us == optimum) ++found;
  }
  EXPECT_GE(found, 9);
}

TEST(PortfolioSearchTest, IsDeterministicPerSeedWithAsksAhead) {
  const auto rec = additive_recording(6, 4);
  const RecordedSpace space(rec);
  for (const auto& options : {options_with(10, 40), gp_options()}) {
    auto run = [&](std::uint64_t seed) {
      ReplayEvaluator evaluator(rec);
      PortfolioSearch s(space, seed, options);
      std::vector<Point> order;
      for (int round = 0; round < 40; ++round) {
        std::vector<Point> batch;
        for (int i = 0; i < 3; ++i)
          if (auto p = s.ask()) batch.push_back(*p);
        for (const auto& p : batch) s.tell(p, evaluator.evaluate(p));
        order.insert(order.end(), batch.begin(), batch.end());
      }
      return order;
    };
    const auto a = run(9);
    EXPECT_EQ(a, run(9));
    EXPECT_NE(a, run(10));
    EXPECT_EQ(std::set<Point>(a.begin(), a.end()).size(), a.size());
  }
}

}  // namespace
}  // namespace kev
