// A kernel with `dispatch` tuned in-process with the fakes: one search per bucket over the
// bucket's problems, one row each, every bucket locked on its own under the replace rule.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/spec_fixture.h"
#include "core/tune_run.h"
#include "support/fakes.h"

namespace kev {
namespace {

using testing::FakeTuneBackend;
using testing::FakeTuneConsole;
using testing::FakeTuneStore;

std::int64_t x_of(const ParamSet& p) { return p.at("X").as_int().value_or(0); }

Problem cols(std::int64_t c) { return Problem{{{"cols", c}, {"rows", 8}}, {}}; }

// X in 1..8; problems of 1024, 4096 and 8192 columns; buckets [0, 2048), [2048, inf).
KernelSpec bucketed_spec() {
  KernelSpec spec;
  spec.id = "softmax";
  spec.source = "kernels/softmax.cu";
  spec.params = {kev::testing::param("X", {1, 2, 3, 4, 5, 6, 7, 8})};
  spec.problems = {cols(1024), cols(4096), cols(8192)};
  DispatchSpec d;
  d.by = "cols";
  d.buckets = {{0, 2048}, {2048, std::nullopt}};
  d.bucket_where = {{}, {}};
  spec.dispatch = d;
  return spec;
}

class TuneBucketsTest : public ::testing::Test {
 protected:
  TuneBucketsTest() {
    options.strategy = "exhaustive";
    // Small rows want X = 2, large ones X = 7: distance from the best X, plus the size.
    backend.time_on_problems = [](const ParamSet& p, const std::vector<Problem>& problems) {
      double t = 0;
      for (const Problem& pr : problems) {
        const std::int64_t best = pr.dims.at("cols") < 2048 ? 2 : 7;
        const std::int64_t x = p.count("X") ? x_of(p) : 4;  // the baseline: X = 4
        t += static_cast<double>(pr.dims.at("cols")) / 1024.0 +
             10.0 * static_cast<double>(std::abs(x - best));
      }
      return t;
    };
  }
  Result<std::vector<KernelRow>> tune(const KernelSpec& spec) {
    auto devices = open_devices(backend, {0}, console);
    EXPECT_TRUE(devices.ok());
    return tune_kernels({&spec}, *devices, backend, store, console, options);
  }
  const LockEntry& entry() {
    return store.lock.kernels.at("softmax").targets.at("sm_90").at("Fake GPU");
  }
  std::string lines() {
    std::string all;
    for (const auto& l : console.lines) all += l + "\n";
    return all;
  }

  FakeTuneBackend backend;
  FakeTuneStore store;
  FakeTuneConsole console;
  TuneRunOptions options;
};

TEST_F(TuneBucketsTest, OneSearchAndOneLockedWinnerPerBucket) {
  const KernelSpec spec = bucketed_spec();
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].id, "softmax");
  EXPECT_EQ((*rows)[0].bucket, "cols [0, 2048)");
  EXPECT_EQ((*rows)[1].bucket, "cols [2048, inf)");
  EXPECT_EQ(x_of(*(*rows)[0].winner), 2);
  EXPECT_EQ(x_of(*(*rows)[1].winner), 7);
  EXPECT_EQ((*rows)[0].evaluations, 8u);
  EXPECT_EQ((*rows)[1].evaluations, 8u);
  // Baseline X = 4: 1 + 20 on the small bucket, (4 + 30) + (8 + 30) on the large one.
  EXPECT_EQ((*rows)[0].baseline_us, 21.0);
  EXPECT_EQ((*rows)[1].baseline_us, 72.0);
  EXPECT_EQ((*rows)[1].winner_us, 12.0);
  // Each search measured its bucket's problems only.
  ASSERT_EQ(backend.evaluated_problems.size(), 2u);
  EXPECT_EQ(backend.evaluated_problems[0].size(), 1u);
  EXPECT_EQ(backend.evaluated_problems[1].size(), 2u);
  // One trace, each record tagged with its bucket.
  EXPECT_EQ(store.bucket_records[0], 8);
  EXPECT_EQ(store.bucket_records[1], 8);
  EXPECT_TRUE(console.has("softmax: 2 buckets of cols, one search each"));

  const LockEntry& e = entry();
  EXPECT_EQ(e.by, "cols");
  ASSERT_EQ(e.buckets.size(), 2u);
  EXPECT_EQ(e.buckets[0].range, (BucketRange{0, 2048}));
  EXPECT_EQ(x_of(e.buckets[0].params), 2);
  EXPECT_EQ(e.buckets[0].time_us, 1.0);
  EXPECT_EQ(e.buckets[0].baseline_us, 21.0);
  EXPECT_EQ(x_of(e.buckets[1].params), 7);
  EXPECT_TRUE(e.params.empty());
  EXPECT_NE(e.tuned_with.find("8 evaluations per bucket"), std::string::npos) << e.tuned_with;
  EXPECT_EQ(required_schema_version(store.lock), 3);
}

TEST_F(TuneBucketsTest, TheLockDecisionIsPerBucket) {
  const KernelSpec spec = bucketed_spec();
  ASSERT_TRUE(tune(spec).ok());
  // Locked winners of another run: the small bucket's is beaten, the large one's is within
  // 2% of the challenger and kept.
  LockEntry& e = store.lock.kernels.at("softmax").targets.at("sm_90").at("Fake GPU");
  e.buckets[0].params = {{"X", Value(5)}};
  e.buckets[1].params = {{"X", Value(6)}};
  backend.time_on_problems = [](const ParamSet& p, const std::vector<Problem>& problems) {
    const std::int64_t x = p.count("X") ? x_of(p) : 4;
    if (problems.size() == 1)
      return 10.0 + static_cast<double>(std::abs(x - 2));  // small: X = 2 is 3 us faster
    return x == 6 ? 100.0 : x == 7 ? 99.5 : 200.0;         // large: 0.5% apart
  };
  backend.remeasured.clear();
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].lock, LockAction::locked);
  EXPECT_EQ((*rows)[1].lock, LockAction::kept);
  EXPECT_EQ(x_of((*rows)[1].kept_params), 6);
  ASSERT_EQ(backend.remeasured.size(), 2u);
  EXPECT_EQ(x_of(entry().buckets[0].params), 2);
  EXPECT_EQ(x_of(entry().buckets[1].params), 6);
  // Unchanged again: the small bucket already locked; the large one re-measured and kept.
  backend.remeasured.clear();
  rows = tune(spec);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].lock, LockAction::already_locked);
  EXPECT_EQ((*rows)[1].lock, LockAction::kept);  // 7 still challenges 6 and loses
}

TEST_F(TuneBucketsTest, AOneSizeBucketIsSearchedWithItsSizeDefined) {
  KernelSpec spec = bucketed_spec();
  spec.defines = {"KEEP=1", "KERNELEVO_SIZE_cols=7"};  // the bucket's size replaces the spec's
  spec.dispatch->buckets = {{1024, 1025}, {2048, std::nullopt}};
  ASSERT_TRUE(tune(spec).ok());
  ASSERT_EQ(backend.evaluated_defines.size(), 3u);
  EXPECT_EQ(backend.evaluated_defines[0],
            (std::vector<std::string>{"KEEP=1", "KERNELEVO_SIZE_cols=1024"}));
  // Its winner is timed once more compiled without the bucket's size: the spec's defines.
  EXPECT_EQ(backend.evaluated_defines[1], spec.defines);
  // A bucket of many sizes is compiled for any of them: the spec's defines as written.
  EXPECT_EQ(backend.evaluated_defines[2], spec.defines);
}

// The size constant can cost more than it saves (more registers, fewer blocks per SM): a
// one-size bucket's winner is timed both ways and locked without the define when that is
// faster with confidence; the next run re-measures it the way it is locked.
class TuneSizedTest : public TuneBucketsTest {
 protected:
  TuneSizedTest() {
    spec.dispatch->buckets = {{1024, 1025}, {2048, std::nullopt}};
    backend.with_defines = [this](double t, const ParamSet&,
                                  const std::vector<std::string>& defines) {
      return std::optional<double>(is_sized(defines) ? t * sized_factor : t);
    };
  }
  static bool is_sized(const std::vector<std::string>& defines) {
    return std::find(defines.begin(), defines.end(), "KERNELEVO_SIZE_cols=1024") != defines.end();
  }
  KernelSpec spec = bucketed_spec();
  double sized_factor = 1.0;
};

TEST_F(TuneSizedTest, AWinnerFasterWithoutItsSizeDefineIsLockedWithout) {
  sized_factor = 1.2;  // 20% slower with the size defined
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  ASSERT_EQ(rows->size(), 2u);
  const KernelRow& one = (*rows)[0];
  EXPECT_EQ(one.sized, std::optional<bool>(false));
  EXPECT_EQ(x_of(*one.winner), 2);   // the search's winner, whichever way it is compiled
  EXPECT_EQ(one.winner_us, 1.0);     // 1024 columns at X = 2, unsized
  EXPECT_EQ(one.baseline_us, 21.0);  // the defaults as a build without a lock compiles them
  EXPECT_EQ((*rows)[1].sized, std::nullopt);  // a bucket of many sizes has no define
  EXPECT_FALSE(entry().buckets[0].sized);
  EXPECT_EQ(entry().buckets[0].time_us, 1.0);
  EXPECT_TRUE(entry().buckets[1].sized);
  EXPECT_EQ(required_schema_version(store.lock), 4);
  EXPECT_TRUE(
      console.has("softmax cols [1024, 1025): without its size define, the winner 1.00 us "
                  "(with it 1.20 us): faster with confidence, locked without it"))
      << lines();

  // Again: the locked winner is the same, locked the same way.
  rows = tune(spec);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].lock, LockAction::already_locked);

  // Now the define pays: the winner compiled with it replaces the one locked without,
  // re-measured compiled without it (1 us) against the new 0.5 us.
  sized_factor = 0.5;
  backend.remeasured.clear();
  rows = tune(spec);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0].sized, std::optional<bool>(true));
  EXPECT_EQ((*rows)[0].lock, LockAction::locked);
  ASSERT_TRUE((*rows)[0].change.has_value());
  EXPECT_EQ((*rows)[0].change->before.median_us, 1.0);
  EXPECT_EQ((*rows)[0].change->after.median_us, 0.5);
  EXPECT_TRUE(entry().buckets[0].sized);
  EXPECT_EQ(required_schema_version(store.lock), 3);
}

TEST_F(TuneSizedTest, AWinnerNotFasterWithConfidenceWithoutStaysSized) {
  sized_factor = 1.01;  // 1% apart: within the replace rule's 2%
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  EXPECT_EQ((*rows)[0].sized, std::optional<bool>(true));
  EXPECT_EQ((*rows)[0].winner_us, 1.01);  // the search's time, with the define
  EXPECT_TRUE(entry().buckets[0].sized);
  EXPECT_EQ(required_schema_version(store.lock), 3);
  EXPECT_TRUE(
      console.has("without its size define, the winner 1.00 us (with it 1.01 us): locked "
                  "with it"))
      << lines();
}

// The build without a lock compiles the source defaults without the define: a winner they
// beat with confidence is not locked; they are, without the define.
TEST_F(TuneSizedTest, TheDefaultsWithoutTheDefineReplaceASlowerWinner) {
  backend.defaults = {{"X", Value(4)}};
  // Sized, X = 2 is the best (1 us) and the defaults X = 4 slow (21 us); unsized, the defaults
  // take 0.5 us and everything else 10 times its sized time.
  backend.with_defines = [](double t, const ParamSet& p, const std::vector<std::string>& defines) {
    if (is_sized(defines)) return std::optional<double>(t);
    const bool defaults = !p.count("X") || x_of(p) == 4;
    return std::optional<double>(defaults ? 0.5 : 10.0 * t);
  };
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  const KernelRow& one = (*rows)[0];
  EXPECT_EQ(x_of(*one.winner), 4);
  EXPECT_TRUE(one.defaults_locked);
  EXPECT_EQ(one.sized, std::optional<bool>(false));
  EXPECT_EQ(one.winner_us, 0.5);
  EXPECT_EQ(one.baseline_us, 0.5);
  EXPECT_EQ(x_of(entry().buckets[0].params), 4);
  EXPECT_FALSE(entry().buckets[0].sized);
  EXPECT_TRUE(
      console.has("softmax cols [1024, 1025): without its size define, the source "
                  "defaults 0.50 us beat the winner's 1.00 us with confidence: the "
                  "defaults are locked without it"))
      << lines();
}

// The sized choice compiles three more times (the winner both ways, the defaults without the
// define): they are asked for ahead, so a backend compiles them beside the baseline's compile.
TEST_F(TuneSizedTest, TheSizedChoicesCompilesAreAskedForAheadOfItsBaseline) {
  backend.defaults = {{"X", Value(4)}};
  ASSERT_TRUE(tune(spec).ok());
  const std::vector<std::string> expected = {
      "measure_baseline KERNELEVO_SIZE_cols=1024",     // the search's
      "prefetch_params KERNELEVO_SIZE_cols=1024 X=2",  // its winner, measured again
      "prefetch_params  X=2 | X=4",                    // the winner and defaults without
      "measure_baseline ",
      "evaluate_params KERNELEVO_SIZE_cols=1024 X=2",
      "evaluate_params  X=2",
      "evaluate_params  X=4",
      "measure_baseline ",  // the next bucket, of many sizes
  };
  EXPECT_EQ(backend.calls, expected);
}

// Where the source no longer passes compiled without the define, the winner stays sized, and
// replaces one locked without it (which would no longer pass either).
TEST_F(TuneSizedTest, ASourceThatFailsWithoutTheDefineStaysSized) {
  sized_factor = 1.2;
  ASSERT_TRUE(tune(spec).ok());
  ASSERT_FALSE(entry().buckets[0].sized);
  backend.with_defines = [](double t, const ParamSet&, const std::vector<std::string>& defines) {
    return is_sized(defines) ? std::optional<double>(t) : std::nullopt;
  };
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  EXPECT_EQ((*rows)[0].sized, std::optional<bool>(true));
  EXPECT_EQ((*rows)[0].lock, LockAction::locked);
  EXPECT_TRUE(entry().buckets[0].sized);
  EXPECT_TRUE(
      console.has("softmax cols [1024, 1025): without its size define, the source "
                  "defaults are incorrect; the winner is locked with it"))
      << lines();
}

TEST_F(TuneBucketsTest, WithoutDispatchOneRowAsBefore) {
  KernelSpec spec = bucketed_spec();
  spec.dispatch.reset();
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].bucket.empty());
  EXPECT_FALSE(entry().has_buckets());
  EXPECT_EQ(backend.evaluated_problems.front().size(), 3u);
  EXPECT_EQ(required_schema_version(store.lock), 1);
}

// A bucket's search starts from the winners of the nearest buckets searched before it.
TEST_F(TuneBucketsTest, ABucketsSearchStartsFromItsNeighboursWinners) {
  KernelSpec spec = bucketed_spec();
  spec.dispatch->buckets = {{1024, 1025}, {4096, 4097}, {8192, 8193}};
  options.strategy = "random";
  std::vector<std::pair<std::int64_t, std::int64_t>> order;  // (the problem's cols, X)
  backend.time_on_problems = [&](const ParamSet& p, const std::vector<Problem>& problems) {
    const std::int64_t x = p.count("X") ? x_of(p) : 4;
    if (p.count("X")) order.emplace_back(problems.front().dims.at("cols"), x);
    return std::optional<double>(10.0 + static_cast<double>(std::abs(x - 3)));
  };
  auto rows = tune(spec);
  ASSERT_TRUE(rows.ok()) << rows.error().to_string();
  // Each search's first evaluation: a random one for 1024; 1024's winner (X = 3) for 4096;
  // for 8192 4096's winner, which is 1024's too: one point, evaluated once.
  std::vector<std::int64_t> first_x;
  std::int64_t last_cols = -1;
  for (const auto& [c, x] : order) {
    if (c != last_cols) first_x.push_back(x);
    last_cols = c;
  }
  ASSERT_EQ(first_x.size(), 3u);
  EXPECT_EQ(first_x[1], 3);
  EXPECT_EQ(first_x[2], 3);
  EXPECT_EQ((*rows)[2].evaluations, 8u);  // every point once, the seed among them
  EXPECT_TRUE(console.has("softmax cols [4096, 4097): starting from the winners of [1024, 1025)"))
      << lines();
  EXPECT_TRUE(console.has(
      "softmax cols [8192, 8193): starting from the winners of [4096, 4097) and [1024, 1025)"))
      << lines();
}

}  // namespace
}  // namespace kev
