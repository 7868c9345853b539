// `auto` on recorded spaces, read as the replay backend reads them: the shipped fixture, and
// the public recordings of ../shared/data/spaces where they are present.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/recorded_space.h"
#include "core/replay_evaluator.h"
#include "core/strategy.h"
#include "core/tuner.h"
#include "io/replay_reader.h"

namespace kev {
namespace {

// Mean over seeds 1..seeds of optimum / best found within each budget.
std::vector<double> mean_quality(const Recording& rec, const std::string& strategy,
                                 std::uint64_t seeds, const std::vector<std::size_t>& budgets) {
  const RecordedSpace space(rec);
  const double optimum = *rec.optimum_us();
  std::vector<double> mean(budgets.size(), 0.0);
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    auto s = make_strategy(strategy, space, seed);
    EXPECT_TRUE(s.ok());
    ReplayEvaluator evaluator(rec);
    TuneRequest req;
    req.space = &space;
    req.strategy = s->get();
    req.evaluator = &evaluator;
    req.budget.evaluations = budgets.back();
    double best = INFINITY;
    std::vector<double> q(budgets.size(), 0.0);
    req.observer = [&](const Evaluation& e, std::size_t index, const Evaluation*) {
      if (e.outcome.passed() && e.outcome.time_us) best = std::min(best, *e.outcome.time_us);
      for (std::size_t b = 0; b < budgets.size(); ++b)
        if (index + 1 <= budgets[b] && std::isfinite(best)) q[b] = optimum / best;
    };
    run_tuner(std::move(req));
    for (std::size_t b = 0; b < budgets.size(); ++b)
      mean[b] += std::max(q[b], b ? q[b - 1] : 0.0) / static_cast<double>(seeds);
  }
  return mean;
}

TEST(SearchQualityTest, AutoFindsTheFixtureOptimumAndCountsFailures) {
  auto rec = io::read_recording(std::string(KERNELEVO_FIXTURES) + "/spaces/synthetic_kt.json");
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  const RecordedSpace space(*rec);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto s = make_strategy("auto", space, seed);
    ASSERT_TRUE(s.ok());
    ReplayEvaluator evaluator(*rec);
    TuneRequest req;
    req.space = &space;
    req.strategy = s->get();
    req.evaluator = &evaluator;
    req.budget.evaluations = 72;  // half of the 144 configurations
    const auto result = run_tuner(std::move(req));
    ASSERT_TRUE(result.best);
    EXPECT_DOUBLE_EQ(*result.best->outcome.time_us, *rec->optimum_us()) << seed;
    EXPECT_EQ(result.evaluations, 72u);  // failed configurations cost their evaluation
  }
}

class SharedSpaces : public ::testing::TestWithParam<std::string> {};

// The default search is never worse on average than sampling at random, at any budget,
// on any of the recorded spaces (dedispersion_MI250X was where it used to fall behind).
TEST_P(SharedSpaces, AutoIsNeverBehindRandomSampling) {
  const std::string file = std::string(KERNELEVO_SHARED_SPACES) + "/" + GetParam() + ".json.gz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " absent";
  auto rec = io::read_recording(file);
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  const std::vector<std::size_t> budgets{25, 50, 100, 200};
  const auto a = mean_quality(*rec, "auto", 20, budgets);
  const auto r = mean_quality(*rec, "random", 20, budgets);
  for (std::size_t b = 0; b < budgets.size(); ++b)
    EXPECT_GE(a[b], r[b]) << GetParam() << " at " << budgets[b];
}

INSTANTIATE_TEST_SUITE_P(Recorded, SharedSpaces,
                         ::testing::Values("dedispersion_MI250X", "convolution_W6600",
                                           "convolution_A100"));

TEST(SearchQualityTest, AutoReachesTheDedispersionMI250XOptimumRegionBy200) {
  const std::string file = std::string(KERNELEVO_SHARED_SPACES) + "/dedispersion_MI250X.json.gz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " absent";
  auto rec = io::read_recording(file);
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  // The iterated local search that was the default reached 0.91 here; the genetic
  // algorithm 0.99.
  const auto a = mean_quality(*rec, "auto", 20, {100, 200});
  EXPECT_GT(a[1], 0.95);
}

}  // namespace
}  // namespace kev
