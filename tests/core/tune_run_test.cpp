// The tune workflow in-process (core/tune_run.h) with the fakes of tests/support/fakes.h:
// baseline, search, memcheck, the lock decision and the policy for several GPUs.
#include "core/tune_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/spec_fixture.h"
#include "support/fakes.h"

namespace kev {
namespace {

using testing::FakeTuneBackend;
using testing::FakeTuneConsole;
using testing::FakeTuneStore;

KernelSpec spec_with(std::string id, std::int64_t values) {
  KernelSpec spec;
  spec.id = std::move(id);
  spec.source = "kernels/" + spec.id + ".cu";
  std::vector<std::int64_t> v;
  for (std::int64_t i = 1; i <= values; ++i) v.push_back(i);
  spec.params = {kev::testing::param("X", v)};
  return spec;
}

std::int64_t x_of(const ParamSet& p) { return p.at("X").as_int().value_or(0); }

class TuneRunTest : public ::testing::Test {
 protected:
  TuneRunTest() {
    options.strategy = "exhaustive";
    backend.time_of = [](const ParamSet& p) { return 100.0 / static_cast<double>(x_of(p)); };
  }
  Result<std::vector<KernelRow>> tune(const std::vector<const KernelSpec*>& kernels,
                                      const std::vector<int>& gpus = {0}) {
    auto devices = open_devices(backend, gpus, console);
    EXPECT_TRUE(devices.ok());
    return tune_kernels(kernels, *devices, backend, store, console, options);
  }
  // Two GPUs whose evaluations take long enough that both get some.
  void two_slow_gpus() {
    backend.present = {0, 1};
    backend.time_of = [](const ParamSet& p) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return 100.0 / static_cast<double>(x_of(p));
    };
  }
  const LockEntry* locked(const std::string& id) {
    auto k = store.lock.kernels.find(id);
    if (k == store.lock.kernels.end()) return nullptr;
    return &k->second.targets.at("sm_90").at("Fake GPU");
  }

  FakeTuneBackend backend;
  FakeTuneStore store;
  FakeTuneConsole console;
  TuneRunOptions options;
};

// tune --timeout: a long sequence's reference needs more than an evaluation's default limit.
TEST_F(TuneRunTest, TheEvaluationTimeLimitReachesTheEvaluator) {
  const KernelSpec spec = spec_with("scale", 2);
  options.timeout_seconds = 120.0;
  ASSERT_TRUE(tune({&spec}).ok());
  ASSERT_EQ(backend.evaluator_options.size(), 1u);
  EXPECT_EQ(backend.evaluator_options.front().timeout_seconds, 120.0);
  options.timeout_seconds = 0.0;  // not given: the runner's own default
  ASSERT_TRUE(tune({&spec}).ok());
  EXPECT_EQ(backend.evaluator_options.back().timeout_seconds, 0.0);
}

TEST_F(TuneRunTest, TunesOneKernelAndLocksTheFastestPoint) {
  const KernelSpec spec = spec_with("scale", 4);
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.id, "scale");
  EXPECT_EQ(row.exit_code, 0);
  EXPECT_EQ(row.baseline_us, 200.0);
  EXPECT_EQ(row.winner_us, 25.0);
  ASSERT_TRUE(row.winner);
  EXPECT_EQ(x_of(*row.winner), 4);
  EXPECT_EQ(row.evaluations, 4u);
  EXPECT_EQ(row.lock, LockAction::locked);
  EXPECT_EQ(row.gpus, std::vector<int>{0});
  ASSERT_NE(locked("scale"), nullptr);
  EXPECT_EQ(x_of(locked("scale")->params), 4);
  EXPECT_EQ(store.lock.kernels.at("scale").source, "kernels/scale.cu");
  EXPECT_TRUE(console.has("scale: 4 configurations; measuring the baseline"));
  // What the report shows: the source defaults against the winner, both as this run measured.
  ASSERT_TRUE(row.change);
  EXPECT_EQ(row.change->id, "scale");
  EXPECT_EQ(row.change->arch, "sm_90");
  EXPECT_EQ(row.change->device, "Fake GPU");
  EXPECT_FALSE(row.change->before_is_old_entry);
  EXPECT_DOUBLE_EQ(row.change->before.median_us, 200.0);
  EXPECT_DOUBLE_EQ(row.change->after.median_us, 25.0);
  EXPECT_DOUBLE_EQ(row.change->after.ci_high_us, 25.0 * 1.01);
  EXPECT_TRUE(row.change->intervals);
}

// A search whose best (25 us) is slower than the source defaults (20 us) must not make the
// build slower: the defaults are locked, as measured, and the run says why.
TEST_F(TuneRunTest, ASearchSlowerThanTheSourceDefaultsLocksTheDefaults) {
  const KernelSpec spec = spec_with("scale", 4);
  backend.baseline_us = 20.0;
  backend.defaults = {{"X", Value(1)}};
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.exit_code, 0);
  EXPECT_TRUE(row.defaults_locked);
  ASSERT_TRUE(row.winner);
  EXPECT_EQ(x_of(*row.winner), 1);
  EXPECT_EQ(row.winner_us, 20.0);
  EXPECT_EQ(row.lock, LockAction::locked);
  ASSERT_NE(locked("scale"), nullptr);
  EXPECT_EQ(x_of(locked("scale")->params), 1);
  EXPECT_EQ(locked("scale")->time_us, 20.0);
  EXPECT_TRUE(
      console.has("scale: no configuration was faster than the source defaults (25.0 us "
                  "against 20.0 us): the defaults are locked"));
}

// Defaults the spec does not list (X = 7 of 1..4) cannot be locked: nothing is, and the build
// keeps compiling the defaults.
TEST_F(TuneRunTest, ASearchSlowerThanUnlistedDefaultsLocksNothing) {
  const KernelSpec spec = spec_with("scale", 4);
  backend.baseline_us = 20.0;
  backend.defaults = {{"X", Value(7)}};
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.exit_code, 0);
  EXPECT_FALSE(row.winner);
  EXPECT_EQ(row.lock, LockAction::not_locked);
  EXPECT_EQ(locked("scale"), nullptr);
  EXPECT_EQ(store.writes, 0);
  EXPECT_TRUE(console.has("they are not a configuration of its space, so nothing is locked"));
}

TEST_F(TuneRunTest, ALockedWinnerTunedAgainIsNotRewritten) {
  const KernelSpec spec = spec_with("scale", 4);
  ASSERT_TRUE(tune({&spec}).ok());
  auto again = tune({&spec});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->front().lock, LockAction::already_locked);
  EXPECT_EQ(store.writes, 1);
  EXPECT_TRUE(backend.remeasured.empty());
}

TEST_F(TuneRunTest, TheLockedWinnerIsKeptWhenTheNewOneIsNotFasterWithConfidence) {
  const KernelSpec spec = spec_with("scale", 4);
  ASSERT_TRUE(tune({&spec}).ok());
  // X=3 is locked and now measures within 1% of the new winner X=4.
  store.lock.kernels.at("scale").targets.at("sm_90").at("Fake GPU").params["X"] = std::int64_t{3};
  backend.time_of = [](const ParamSet& p) {
    return x_of(p) == 3 ? 10.05 : 100.0 / static_cast<double>(x_of(p)) - 15;
  };
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.lock, LockAction::kept);
  EXPECT_EQ(x_of(row.kept_params), 3);
  EXPECT_DOUBLE_EQ(row.kept_us, 10.05);
  EXPECT_FALSE(row.change);  // nothing changed, so the report keeps the recorded entry
  ASSERT_EQ(backend.remeasured.size(), 1u);
  EXPECT_EQ(x_of(backend.remeasured.front()), 3);
  EXPECT_EQ(x_of(locked("scale")->params), 3);
  EXPECT_EQ(store.writes, 1);
}

TEST_F(TuneRunTest, AChallengerFasterWithConfidenceReplacesTheLockedWinner) {
  const KernelSpec spec = spec_with("scale", 4);
  ASSERT_TRUE(tune({&spec}).ok());
  store.lock.kernels.at("scale").targets.at("sm_90").at("Fake GPU").params["X"] = std::int64_t{1};
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().lock, LockAction::locked);
  EXPECT_EQ(x_of(locked("scale")->params), 4);
  EXPECT_EQ(store.writes, 2);
  // The old entry's side is its re-measurement in this run, not the time recorded before.
  ASSERT_TRUE(rows->front().change);
  EXPECT_TRUE(rows->front().change->before_is_old_entry);
  EXPECT_DOUBLE_EQ(rows->front().change->before.median_us, 100.0);
}

// A spec with objectives locks the leanest configuration within 2% of the fastest, and the
// row carries the Pareto front of time and registers.
TEST_F(TuneRunTest, ObjectivesLockTheLeanestWithinTheShareAndReportTheParetoFront) {
  KernelSpec spec = spec_with("scale", 4);
  spec.objectives = ObjectivesSpec{{Resource::registers}, 0.02};
  // X=4 is fastest (25.0 us, 64 registers); X=3 is 1% slower with 32 registers.
  backend.time_of = [](const ParamSet& p) {
    const std::int64_t x = x_of(p);
    return x == 4 ? 25.0 : x == 3 ? 25.3 : 100.0 / static_cast<double>(x);
  };
  backend.resources_of = [](const ParamSet& p) {
    return KernelResources{x_of(p) == 4 ? 64 : x_of(p) == 3 ? 32 : 48, 0, 0};
  };
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  ASSERT_TRUE(row.winner);
  EXPECT_EQ(x_of(*row.winner), 3);
  EXPECT_DOUBLE_EQ(*row.winner_us, 25.3);
  EXPECT_EQ(x_of(locked("scale")->params), 3);
  EXPECT_NE(
      locked("scale")->tuned_with.find("objectives: lowest registers within 2% of the fastest"),
      std::string::npos)
      << locked("scale")->tuned_with;
  ASSERT_EQ(row.pareto.size(), 2u);  // X=4 (fastest) and X=3 (leaner); X=1, 2 are beaten
  EXPECT_EQ(x_of(row.pareto[0].params), 4);
  EXPECT_EQ(row.pareto[0].resources.registers, 64);
  EXPECT_EQ(x_of(row.pareto[1].params), 3);
  EXPECT_TRUE(
      console.has("scale: objectives: lowest registers within 2% of the fastest: locks "
                  "registers 32 at 25.3 us over the fastest's registers 64 at 25.0 us"));
}

// The defaults rule compares the search's fastest with the defaults: the objectives' leaner
// point may be within its share slower than the defaults and is still what gets locked.
TEST_F(TuneRunTest, ObjectivesKeepTheirPointWhenTheFastestBeatsTheDefaults) {
  KernelSpec spec = spec_with("scale", 4);
  spec.objectives = ObjectivesSpec{{Resource::registers}, 0.02};
  backend.time_of = [](const ParamSet& p) {
    const std::int64_t x = x_of(p);
    return x == 4 ? 25.0 : x == 3 ? 25.3 : 100.0 / static_cast<double>(x);
  };
  backend.resources_of = [](const ParamSet& p) {
    return KernelResources{x_of(p) == 4 ? 64 : x_of(p) == 3 ? 32 : 48, 0, 0};
  };
  backend.baseline_us = 25.2;  // between the fastest (25.0) and the leaner point (25.3)
  backend.defaults = {{"X", Value(1)}};
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  ASSERT_TRUE(row.winner);
  EXPECT_FALSE(row.defaults_locked);
  EXPECT_EQ(x_of(*row.winner), 3);
  EXPECT_EQ(x_of(locked("scale")->params), 3);
}

TEST_F(TuneRunTest, ObjectivesWithoutResourcesLockTheFastestAndSaySo) {
  KernelSpec spec = spec_with("scale", 4);
  spec.objectives = ObjectivesSpec{{Resource::registers}, 0.02};
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(x_of(*rows->front().winner), 4);
  EXPECT_TRUE(rows->front().pareto.empty());
  EXPECT_TRUE(
      console.has("scale: objectives not applied: 4 passed configurations have no "
                  "resources recorded; the fastest is locked"));
}

TEST_F(TuneRunTest, AWinnerThatFailsMemcheckIsNotLocked) {
  options.memcheck = true;
  backend.memcheck_verdict = {true, false, "1 error: invalid read"};
  const KernelSpec spec = spec_with("scale", 4);
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.lock, LockAction::not_locked);
  EXPECT_EQ(row.exit_code, static_cast<int>(ExitCode::failure));
  EXPECT_EQ(row.failure, "the winner fails memcheck: 1 error: invalid read");
  EXPECT_EQ(backend.memchecks, 1);
  EXPECT_EQ(store.writes, 0);
}

TEST_F(TuneRunTest, MemcheckThatCannotRunIsAnEnvironmentFailure) {
  options.memcheck = true;
  backend.memcheck_verdict = {false, false, "compute-sanitizer not found"};
  const KernelSpec spec = spec_with("scale", 2);
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().exit_code, static_cast<int>(ExitCode::environment));
  EXPECT_EQ(store.writes, 0);
}

TEST_F(TuneRunTest, AFailingBaselineIsARowWithAFailure) {
  backend.baseline_passes = false;
  const KernelSpec spec = spec_with("scale", 4);
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.exit_code, static_cast<int>(ExitCode::failure));
  EXPECT_EQ(row.failure, "the baseline (source defaults) is incorrect: max error 1.5");
  EXPECT_FALSE(row.winner);
  EXPECT_TRUE(console.has("warning: "));
  EXPECT_EQ(store.writes, 0);
}

TEST_F(TuneRunTest, NoPassingPointIsARowWithAFailure) {
  backend.time_of = [](const ParamSet&) { return std::nullopt; };
  const KernelSpec spec = spec_with("scale", 3);
  auto rows = tune({&spec});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->front().failure, "no configuration passed");
  EXPECT_TRUE(console.has("scale: X=1: incorrect: "));
}

TEST_F(TuneRunTest, FewerKernelsThanGpusShareOneSearch) {
  two_slow_gpus();
  const KernelSpec spec = spec_with("scale", 40);
  auto rows = tune({&spec}, {0, 1});
  ASSERT_TRUE(rows.ok());
  const KernelRow& row = rows->front();
  EXPECT_EQ(row.gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(row.evaluations, 40u);
  EXPECT_EQ(x_of(*row.winner), 40);
  EXPECT_GT(backend.evaluations_by_gpu[0], 0);
  EXPECT_GT(backend.evaluations_by_gpu[1], 0);
  EXPECT_EQ(backend.evaluations_by_gpu[0] + backend.evaluations_by_gpu[1], 40);
  EXPECT_TRUE(console.has("scale: one search on GPUs 0,1, each evaluating the next configuration"));
}

TEST_F(TuneRunTest, AtLeastAsManyKernelsAsGpusGiveEachKernelOneGpu) {
  two_slow_gpus();
  const KernelSpec a = spec_with("a", 8);
  const KernelSpec b = spec_with("b", 8);
  const KernelSpec c = spec_with("c", 8);
  auto rows = tune({&a, &b, &c}, {0, 1});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  std::set<int> used;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*rows)[i].id, std::string(1, static_cast<char>('a' + i)));  // the kernels' order
    ASSERT_EQ((*rows)[i].gpus.size(), 1u);
    used.insert((*rows)[i].gpus.front());
    EXPECT_EQ((*rows)[i].lock, LockAction::locked);
  }
  EXPECT_EQ(used, (std::set<int>{0, 1}));
  EXPECT_EQ(store.lock.kernels.size(), 3u);
  EXPECT_FALSE(console.has("one search"));
}

TEST_F(TuneRunTest, AllGpusAreFoundByAskingUntilOneDoesNotAnswer) {
  backend.present = {0, 1, 2};
  auto devices = open_devices(backend, {}, console);
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 3u);
  EXPECT_EQ(devices->back().index, 2);
  EXPECT_TRUE(
      console.has("kernelevo: GPU 1: Fake GPU (sm_90, 132 SMs), copy 3000 GB/s, read "
                  "4000 GB/s, no clock"));
}

TEST_F(TuneRunTest, AMissingGpuIsAnEnvironmentError) {
  auto devices = open_devices(backend, {0, 3}, console);
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.error().code, ExitCode::environment);
  EXPECT_NE(devices.error().message.find("no GPU 3 to tune on (no device 3)"), std::string::npos);
  backend.present = {};
  EXPECT_FALSE(open_devices(backend, {}, console).ok());
}

}  // namespace
}  // namespace kev
