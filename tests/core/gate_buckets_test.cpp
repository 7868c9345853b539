// check and compare of a kernel with buckets: a row per bucket, each bucket's winner
// measured on the problems inside it and judged against its own recorded time; the
// lockfile's tune report has a row per bucket too.
#include <gtest/gtest.h>

#include "core/check.h"
#include "core/compare_gate.h"
#include "core/lock_report.h"
#include "gate_fake_measurer.h"

namespace kev {
namespace {

using testing::FakeMeasurer;

const std::string kHash = "sha256:" + std::string(64, 'a');

KernelSpec bucketed_spec() {
  KernelSpec s;
  s.id = "softmax";
  s.kernel = "softmax";
  s.source = "src/softmax.cu";
  s.where = {s.source, 12, 1};
  s.params.push_back({"BLOCK", {Value(128), Value(256), Value(512)}, {}});
  s.problems = {Problem{{{"cols", 1024}}, {}}, Problem{{{"cols", 8192}}, {}},
                Problem{{{"cols", 16384}}, {}}};
  DispatchSpec d;
  d.by = "cols";
  d.buckets = {{0, 4096}, {4096, std::nullopt}};
  d.bucket_where = {{}, {}};
  s.dispatch = d;
  return s;
}

Lockfile bucketed_lock(double small_us, double large_us) {
  Lockfile lock;
  set_bucket(lock, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{0, 4096}, {{"BLOCK", Value(128)}}, small_us, 2 * small_us},
             "t, 9 evaluations per bucket");
  set_bucket(lock, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{4096, std::nullopt}, {{"BLOCK", Value(512)}}, large_us, 2 * large_us},
             "t, 9 evaluations per bucket");
  return lock;
}

// A check of `spec` against `lock` on the H200 the lockfile names, the source unchanged.
CheckInput check_input(const Lockfile& lock, const KernelSpec& spec) {
  CheckInput in;
  in.lock = &lock;
  in.specs = {&spec};
  in.gpu = {"sm_90", "NVIDIA H200"};
  in.source_hash = [](const std::string&) -> std::optional<std::string> { return kHash; };
  return in;
}

// A compare of `spec` from `base` to `head` on the H200 the lockfiles name.
CompareInput compare_input(const Lockfile& base, const Lockfile& head, const KernelSpec& spec) {
  CompareInput cmp;
  cmp.base.lock = &base;
  cmp.base.specs = {&spec};
  cmp.head.lock = &head;
  cmp.head.specs = {&spec};
  cmp.gpu = {"sm_90", "NVIDIA H200"};
  return cmp;
}

TEST(GateBuckets, CheckJudgesEachBucketOnItsProblems) {
  const KernelSpec spec = bucketed_spec();
  // Measured 100 us: the small bucket recorded 100 (passes), the large one 50 (slower).
  const Lockfile lock = bucketed_lock(100.0, 50.0);
  FakeMeasurer measurer;
  measurer.set("head", "softmax", 100.0, 0.001);
  const CheckInput in = check_input(lock, spec);
  const Report r = run_check(in, measurer);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].bucket, "cols [0, 4096)");
  EXPECT_EQ(kernel_label(r.kernels[0]), "softmax cols [0, 4096)");
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::pass);
  EXPECT_EQ(r.kernels[0].params.at("BLOCK"), Value(128));
  EXPECT_EQ(r.kernels[1].bucket, "cols [4096, inf)");
  EXPECT_EQ(r.kernels[1].verdict, KernelVerdict::slower);
  EXPECT_EQ(r.kernels[1].params.at("BLOCK"), Value(512));
  // Every round of the small bucket measured its one problem, of the large its two.
  ASSERT_FALSE(measurer.problems_seen.empty());
  EXPECT_EQ(measurer.problems_seen.front().size(), 1u);
  EXPECT_EQ(measurer.problems_seen.back().size(), 2u);
  EXPECT_EQ(measurer.params_seen.back().at("BLOCK"), Value(512));
}

TEST(GateBuckets, CheckAndCompareMeasureAOneSizeBucketWithItsSizeDefined) {
  KernelSpec spec = bucketed_spec();
  spec.dispatch->buckets = {{1024, 1025}, {4096, std::nullopt}};
  Lockfile lock;
  set_bucket(lock, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{1024, 1025}, {{"BLOCK", Value(128)}}, 100.0, 200.0}, "t");
  set_bucket(lock, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{4096, std::nullopt}, {{"BLOCK", Value(512)}}, 100.0, 200.0}, "t");
  FakeMeasurer measurer;
  measurer.set("head", "softmax", 100.0, 0.001);
  measurer.set("base", "softmax", 100.0, 0.001);
  const CheckInput in = check_input(lock, spec);
  ASSERT_EQ(run_check(in, measurer).kernels.size(), 2u);
  const std::vector<std::string> sized{"KERNELEVO_SIZE_cols=1024"};
  ASSERT_FALSE(measurer.defines_seen.empty());
  EXPECT_EQ(measurer.defines_seen.front(), sized);
  EXPECT_TRUE(measurer.defines_seen.back().empty());

  measurer.defines_seen.clear();
  ASSERT_EQ(run_compare(compare_input(lock, lock, spec), measurer).kernels.size(), 2u);
  ASSERT_FALSE(measurer.defines_seen.empty());
  EXPECT_EQ(measurer.defines_seen.front(), sized);  // both sides build the bucket so
  EXPECT_TRUE(measurer.defines_seen.back().empty());
}

// A bucket locked without its size define ("sized": false) is measured as the build compiles
// it: check without the define; compare each side its own way.
TEST(GateBuckets, CheckAndCompareMeasureAnUnsizedBucketWithoutItsSize) {
  KernelSpec spec = bucketed_spec();
  spec.dispatch->buckets = {{1024, 1025}, {4096, std::nullopt}};
  Lockfile sized;
  set_bucket(sized, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{1024, 1025}, {{"BLOCK", Value(128)}}, 100.0, 200.0}, "t");
  Lockfile unsized = sized;
  unsized.kernels["softmax"].targets["sm_90"]["NVIDIA H200"].buckets[0].sized = false;
  FakeMeasurer measurer;
  measurer.set("head", "softmax", 100.0, 0.001);
  measurer.set("base", "softmax", 100.0, 0.001);
  const CheckInput in = check_input(unsized, spec);
  ASSERT_EQ(run_check(in, measurer).kernels.size(), 1u);
  ASSERT_FALSE(measurer.defines_seen.empty());
  for (const auto& defines : measurer.defines_seen) EXPECT_TRUE(defines.empty());

  measurer.defines_seen.clear();
  measurer.problems_seen.clear();
  measurer.calls.clear();
  ASSERT_EQ(run_compare(compare_input(sized, unsized, spec), measurer).kernels.size(),
            1u);  // the head entry's one bucket
  const std::vector<std::string> with{"KERNELEVO_SIZE_cols=1024"};
  bool base_sized = false;
  bool head_unsized = false;
  for (std::size_t i = 0; i < measurer.calls.size(); ++i) {
    if (measurer.calls[i] == "base:softmax") base_sized = measurer.defines_seen[i] == with;
    if (measurer.calls[i] == "head:softmax") head_unsized = measurer.defines_seen[i].empty();
  }
  EXPECT_TRUE(base_sized);
  EXPECT_TRUE(head_unsized);
}

TEST(GateBuckets, CompareHasARowPerBucketWithEachSidesParams) {
  const KernelSpec spec = bucketed_spec();
  const Lockfile head = bucketed_lock(100.0, 50.0);
  Lockfile base;  // the base locked one winner for every problem
  LockEntry plain;
  plain.params = {{"BLOCK", Value(256)}};
  set_entry(base, "softmax", "src/softmax.cu", kHash, "sm_90", "NVIDIA H200", plain);
  FakeMeasurer measurer;
  measurer.set("base", "softmax", 100.0, 0.001);
  measurer.set("head", "softmax", 100.0, 0.001);
  CompareInput in;
  in.base.lock = &base;
  in.base.specs = {&spec};
  in.head.lock = &head;
  in.head.specs = {&spec};
  in.gpu = {"sm_90", "NVIDIA H200"};
  in.base_ref = "HEAD~1";
  const Report r = run_compare(in, measurer);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].bucket, "cols [0, 4096)");
  EXPECT_EQ(r.kernels[0].base_params.at("BLOCK"), Value(256));
  EXPECT_EQ(r.kernels[0].params.at("BLOCK"), Value(128));
  EXPECT_EQ(r.kernels[1].params.at("BLOCK"), Value(512));
  EXPECT_EQ(r.kernels[1].verdict, KernelVerdict::same);
}

TEST(GateBuckets, TuneReportHasARowPerBucket) {
  const Report r = report_from_lockfile(bucketed_lock(10.0, 40.0), {});
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].bucket, "cols [0, 4096)");
  EXPECT_EQ(r.kernels[0].time_us, 10.0);
  EXPECT_EQ(r.kernels[0].speedup, 2.0);
  EXPECT_EQ(r.kernels[0].evaluations, 9);
  EXPECT_EQ(r.kernels[1].bucket, "cols [4096, inf)");
  EXPECT_EQ(r.kernels[1].params.at("BLOCK"), Value(512));
}

// A reviewer sees in the report which buckets the build compiles without their size define,
// and when that changed, since the parameters alone do not say.
TEST(GateBuckets, TuneReportSaysWhichBucketsAreBuiltWithoutTheirSizeDefine) {
  const Lockfile base = bucketed_lock(10.0, 40.0);
  Lockfile head = base;
  head.kernels["softmax"].targets["sm_90"]["NVIDIA H200"].buckets[0].sized = false;
  Report r = report_from_lockfile(head, {}, &base);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_NE(r.kernels[0].evidence.find("; compiled without its size define (was with it)"),
            std::string::npos)
      << r.kernels[0].evidence;
  EXPECT_EQ(r.kernels[1].evidence.find("size define"), std::string::npos);
  r = report_from_lockfile(base, {}, &head);
  EXPECT_NE(r.kernels[0].evidence.find("; compiled with its size define (was without it)"),
            std::string::npos)
      << r.kernels[0].evidence;
  r = report_from_lockfile(head);
  EXPECT_NE(r.kernels[0].evidence.find("; compiled without its size define;"), std::string::npos)
      << r.kernels[0].evidence;
}

}  // namespace
}  // namespace kev
