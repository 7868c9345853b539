#include "core/tuner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "core/recorded_space.h"
#include "core/replay_evaluator.h"
#include "core/strategy.h"
#include "search_fixture.h"

namespace kev {
namespace {

// A request searching `space` with `strategy`, evaluated by `evaluator`.
TuneRequest request(const RecordedSpace& space, Strategy* strategy, Evaluator* evaluator) {
  TuneRequest req;
  req.space = &space;
  req.strategy = strategy;
  req.evaluator = evaluator;
  return req;
}

class RecordingEvaluator : public ReplayEvaluator {
 public:
  using ReplayEvaluator::ReplayEvaluator;
  void prefetch(const std::vector<Point>& upcoming) override { prefetched.push_back(upcoming); }
  void set_incumbent_us(double us) override { incumbents.push_back(us); }
  std::vector<std::vector<Point>> prefetched;
  std::vector<double> incumbents;
};

TEST(TunerTest, CountsPriorEvaluationsAndNeverRepeatsThem) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  RecordingEvaluator evaluator(rec);
  auto s = make_strategy("random", space, 2);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &evaluator);
  req.budget.evaluations = 25;
  for (std::size_t i = 0; i < 10; ++i)
    req.prior.push_back({rec.points()[i].point, rec.points()[i].outcome, 0.5});
  std::size_t observed = 0;
  req.observer = [&](const Evaluation&, std::size_t index, const Evaluation*) {
    EXPECT_EQ(index, 10 + observed);
    ++observed;
  };
  const auto result = run_tuner(std::move(req));
  EXPECT_EQ(result.evaluations, 25u);
  EXPECT_EQ(result.new_evaluations, 15u);
  EXPECT_EQ(observed, 15u);
  std::set<Point> distinct;
  for (const auto& e : result.history) distinct.insert(e.point);
  EXPECT_EQ(distinct.size(), 25u);
  std::uint64_t total = 0;
  for (const auto& [d, n] : result.counts) total += n;
  EXPECT_EQ(total, 25u);
  // The incumbent reported to the evaluator only ever improves.
  ASSERT_FALSE(evaluator.incumbents.empty());
  for (std::size_t i = 1; i < evaluator.incumbents.size(); ++i)
    EXPECT_LT(evaluator.incumbents[i], evaluator.incumbents[i - 1]);
  EXPECT_DOUBLE_EQ(evaluator.incumbents.back(), *result.best->outcome.time_us);
}

// Seeds are evaluated first, in order, skipping those in prior or outside the space; the
// exhaustive strategy then walks the rest without evaluating a seed again.
TEST(TunerTest, SeedsAreEvaluatedFirstAndNeverTwice) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  RecordingEvaluator evaluator(rec);
  auto s = make_strategy("exhaustive", space, 1);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &evaluator);
  req.lookahead = 4;
  const std::size_t n = rec.points().size();
  const Point last = rec.points()[n - 1].point;
  const Point middle = rec.points()[n / 2].point;
  const Point first = rec.points()[0].point;
  req.prior.push_back({first, rec.points()[0].outcome, 0.5});
  Point outside = last;
  outside[0] = 1000;  // no such value index
  req.seeds = {last, outside, first, middle, last};
  const auto result = run_tuner(std::move(req));
  ASSERT_EQ(result.history.size(), n);
  EXPECT_EQ(result.history[0].point, first);  // the prior
  EXPECT_EQ(result.history[1].point, last);   // then the seeds, in order, once each
  EXPECT_EQ(result.history[2].point, middle);
  std::set<Point> distinct;
  for (const auto& e : result.history) distinct.insert(e.point);
  EXPECT_EQ(distinct.size(), n);
  EXPECT_TRUE(result.exhausted);

  // Within the budget: one evaluation is the first seed alone.
  auto again = make_strategy("exhaustive", space, 1);
  TuneRequest one = request(space, again->get(), &evaluator);
  one.budget.evaluations = 1;
  one.seeds = {middle, last};
  const auto single = run_tuner(std::move(one));
  ASSERT_EQ(single.history.size(), 1u);
  EXPECT_EQ(single.history[0].point, middle);
}

TEST(TunerTest, LookaheadPrefetchesUpcomingProposals) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  RecordingEvaluator evaluator(rec);
  auto s = make_strategy("auto", space, 2);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &evaluator);
  req.budget.evaluations = 12;
  req.lookahead = 3;
  const auto result = run_tuner(std::move(req));
  EXPECT_EQ(result.evaluations, 12u);
  ASSERT_EQ(evaluator.prefetched.size(), 12u);
  EXPECT_EQ(evaluator.prefetched.front().size(), 4u);
  EXPECT_EQ(evaluator.prefetched.back().size(), 1u);  // never asks beyond the budget
  EXPECT_EQ(evaluator.prefetched.front().front(), result.history.front().point);
}

// One GPU of several: a replayed outcome after a short wait, counting how many of its
// kind are evaluating at once.
class ConcurrentEvaluator : public ReplayEvaluator {
 public:
  ConcurrentEvaluator(const Recording& rec, std::atomic<int>& busy, std::atomic<int>& most)
      : ReplayEvaluator(rec), busy_(busy), most_(most) {}
  Outcome evaluate(const Point& p) override {
    const int now = ++busy_;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    --busy_;
    ++evaluated;
    return ReplayEvaluator::evaluate(p);
  }
  void set_incumbent_us(double us) override { incumbent = us; }
  int evaluated = 0;
  std::atomic<double> incumbent{0.0};

 private:
  std::atomic<int>& busy_;
  std::atomic<int>& most_;
};

TEST(TunerTest, SeveralEvaluatorsShareOneSearch) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  std::atomic<int> busy{0}, most{0};
  ConcurrentEvaluator first(rec, busy, most), second(rec, busy, most);
  auto s = make_strategy("exhaustive", space, 1);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &first);
  req.more_evaluators = {&second};
  req.lookahead = 4;
  std::set<std::size_t> workers;
  std::size_t observed = 0;
  req.observer = [&](const Evaluation& e, std::size_t index, const Evaluation*) {
    EXPECT_EQ(index, observed++);  // one call at a time, indices in order
    workers.insert(e.worker);
  };
  const auto result = run_tuner(std::move(req));
  EXPECT_TRUE(result.exhausted);
  EXPECT_EQ(result.evaluations, rec.points().size());
  std::set<Point> distinct;
  for (const auto& e : result.history) distinct.insert(e.point);
  EXPECT_EQ(distinct.size(), rec.points().size());  // every point once, none twice
  EXPECT_EQ(first.evaluated + second.evaluated, static_cast<int>(rec.points().size()));
  EXPECT_GT(first.evaluated, 0);
  EXPECT_GT(second.evaluated, 0);
  EXPECT_EQ(most.load(), 2);  // the two evaluated at the same time
  EXPECT_EQ(workers, (std::set<std::size_t>{0, 1}));
  // Both learn the best time, whichever of them measured it.
  EXPECT_DOUBLE_EQ(first.incumbent.load(), *result.best->outcome.time_us);
  EXPECT_DOUBLE_EQ(second.incumbent.load(), *result.best->outcome.time_us);
}

TEST(TunerTest, SeveralEvaluatorsNeverExceedTheBudget) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  std::atomic<int> busy{0}, most{0};
  ConcurrentEvaluator a(rec, busy, most), b(rec, busy, most), c(rec, busy, most);
  auto s = make_strategy("random", space, 3);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &a);
  req.more_evaluators = {&b, &c};
  req.budget.evaluations = 31;
  req.lookahead = 2;
  const auto result = run_tuner(std::move(req));
  EXPECT_EQ(result.evaluations, 31u);
  EXPECT_EQ(a.evaluated + b.evaluated + c.evaluated, 31);
  EXPECT_FALSE(result.exhausted);
}

TEST(TunerTest, StopsWhenTheWallBudgetIsSpent) {
  const auto rec = testing::synthetic_recording();
  const RecordedSpace space(rec);
  ReplayEvaluator evaluator(rec);
  auto s = make_strategy("random", space, 2);
  ASSERT_TRUE(s.ok());
  TuneRequest req = request(space, s->get(), &evaluator);
  req.budget.wall = std::chrono::duration<double>(0);
  const auto result = run_tuner(std::move(req));
  EXPECT_EQ(result.evaluations, 0u);
  EXPECT_TRUE(result.out_of_time);
}

TEST(TunerTest, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration("90s")->count(), 90.0);
  EXPECT_DOUBLE_EQ(parse_duration("5m")->count(), 300.0);
  EXPECT_DOUBLE_EQ(parse_duration("1h")->count(), 3600.0);
  EXPECT_DOUBLE_EQ(parse_duration("250ms")->count(), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("12")->count(), 12.0);
  EXPECT_FALSE(parse_duration("soon").ok());
  EXPECT_FALSE(parse_duration("5 days").ok());
  EXPECT_FALSE(parse_duration("-3s").ok());
  // A NaN budget never runs out (elapsed >= NaN is false); infinity is no budget either.
  for (const char* text : {"nan", "nans", "NaN", "inf", "infm", "-inf", "1e400s", "1e306h"})
    EXPECT_FALSE(parse_duration(text).ok()) << text;
}

}  // namespace
}  // namespace kev
