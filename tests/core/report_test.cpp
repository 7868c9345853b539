#include "core/report.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/lock_report.h"
#include "core/replay_measurer.h"

namespace kev {
namespace {

Report report_with(std::initializer_list<KernelVerdict> verdicts) {
  Report r;
  int i = 0;
  for (auto v : verdicts) {
    KernelReport k;
    k.id = "k" + std::to_string(i++);
    k.verdict = v;
    r.kernels.push_back(k);
  }
  return r;
}

TEST(Report, VerdictNamesRoundTrip) {
  for (auto v :
       {KernelVerdict::pass, KernelVerdict::slower, KernelVerdict::faster, KernelVerdict::same,
        KernelVerdict::unsure, KernelVerdict::failed, KernelVerdict::stale, KernelVerdict::missing})
    EXPECT_EQ(parse_kernel_verdict(to_string(v)), v);
  EXPECT_FALSE(parse_kernel_verdict("slower"));
  EXPECT_EQ(parse_report_kind("compare"), ReportKind::compare);
  EXPECT_FALSE(parse_report_kind("bench"));
}

TEST(Report, OnlySlowerAndFailedFail) {
  const Report r = report_with({KernelVerdict::pass, KernelVerdict::slower, KernelVerdict::unsure,
                                KernelVerdict::failed, KernelVerdict::stale, KernelVerdict::missing,
                                KernelVerdict::pass});
  EXPECT_EQ(count_failures(r), 2u);
  EXPECT_EQ(count(r, KernelVerdict::pass), 2u);
  EXPECT_EQ(summary_line(r), "1 SLOWER, 1 FAILED, 1 STALE, 1 MISSING, 1 UNSURE, 2 PASS");
  EXPECT_EQ(summary_line(Report{}), "no kernels");
}

TEST(Report, Formatting) {
  EXPECT_EQ(percent_change(1.2), "+20.0%");
  EXPECT_EQ(percent_change(0.955), "-4.5%");
  EXPECT_EQ(percent_change(1.0), "+0.0%");
  EXPECT_EQ(params_text({}), "source defaults");
  EXPECT_EQ(params_text({{"A", Value(1)}, {"B", Value(std::string("float4"))}}), "A=1, B=float4");
}

TEST(LockReport, ParsesTunedWith) {
  const auto t = parse_tuned_with(
      "kernelevo 0.1.0, CUDA 13.0, driver 580.159.04, strategy auto, 96 evaluations");
  EXPECT_EQ(t.strategy, "auto");
  EXPECT_EQ(t.evaluations, 96);
  EXPECT_FALSE(parse_tuned_with("by hand").evaluations);
}

TEST(LockReport, OneRowPerEntryWithSpeedups) {
  Lockfile lock;
  LockEntry e;
  e.params = {{"BLOCK", Value(512)}};
  e.time_us = 70.0;
  e.baseline_us = 140.0;
  e.tuned_with = "strategy evolve, 50 evaluations";
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", e);
  e.time_us = 139.0;
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_80", "NVIDIA A100", e);
  const Report all = report_from_lockfile(lock);
  ASSERT_EQ(all.kernels.size(), 2u);
  EXPECT_EQ(all.kind, ReportKind::tune);
  EXPECT_EQ(all.kernels[1].arch, "sm_90");
  EXPECT_DOUBLE_EQ(*all.kernels[1].speedup, 2.0);
  EXPECT_EQ(all.kernels[1].verdict, KernelVerdict::faster);
  EXPECT_EQ(all.kernels[1].strategy, "evolve");
  EXPECT_EQ(all.kernels[0].verdict, KernelVerdict::same);
  LockReportFilter only;
  only.device = "NVIDIA H200";
  EXPECT_EQ(report_from_lockfile(lock, only).kernels.size(), 1u);
}

// An entry without a time (values locked by hand, or from an older kernelevo) has no
// baseline measurement: its row must not claim the defaults are as good (SAME).
TEST(LockReport, NoBaselineIsNeverSame) {
  Lockfile lock;
  LockEntry e;
  e.params = {{"BLOCK", Value(1024)}};
  e.tuned_with = "not measured: illustrative sm_80 values";
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_80", "NVIDIA A100", e);
  e.time_us = 70.0;  // a winner's time, but no source-defaults time to compare with
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", e);
  const Report r = report_from_lockfile(lock);
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const auto& k : r.kernels) {
    EXPECT_NE(k.verdict, KernelVerdict::same) << k.arch;
    EXPECT_EQ(k.evidence.rfind("no baseline", 0), 0u) << k.evidence;
    EXPECT_FALSE(k.speedup) << k.arch;
    EXPECT_FALSE(k.ratio) << k.arch;
  }
  EXPECT_EQ(count(r, KernelVerdict::same), 0u);
}

// Against the lockfile the tune started from: per (kernel, arch, device) the old entry's
// parameters and time, the new ones, and the speedup; an entry the base lacks is compared
// with the source defaults, which is what a build used before it.
TEST(LockReport, OldToNewAgainstTheBaseLockfile) {
  Lockfile base;
  LockEntry old;
  old.params = {{"BLOCK", Value(256)}};
  old.time_us = 95.0;
  old.baseline_us = 140.0;
  set_entry(base, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", old);
  Lockfile lock = base;
  LockEntry now;
  now.params = {{"BLOCK", Value(512)}};
  now.time_us = 70.0;
  now.baseline_us = 140.0;
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", now);
  now.time_us = 200.0;
  now.baseline_us = 250.0;
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_80", "NVIDIA A100", now);
  const Report r = report_from_lockfile(lock, {}, &base);
  ASSERT_EQ(r.kernels.size(), 2u);
  const KernelReport& a100 = r.kernels[0];
  const KernelReport& h200 = r.kernels[1];
  EXPECT_EQ(h200.device, "NVIDIA H200");
  EXPECT_EQ(h200.base_params, old.params);
  EXPECT_EQ(h200.params, (ParamSet{{"BLOCK", Value(512)}}));
  EXPECT_DOUBLE_EQ(*h200.baseline_us, 95.0);
  EXPECT_DOUBLE_EQ(*h200.time_us, 70.0);
  EXPECT_DOUBLE_EQ(*h200.speedup, 95.0 / 70.0);
  EXPECT_EQ(h200.verdict, KernelVerdict::faster);
  EXPECT_NE(h200.evidence.find("95.0 us → 70.0 us (1.36x over the old entry"), std::string::npos)
      << h200.evidence;
  EXPECT_NE(h200.evidence.find("parameters changed from BLOCK=256"), std::string::npos);
  EXPECT_FALSE(h200.ratio_ci_low);        // a lockfile records no interval: none is made up
  EXPECT_TRUE(a100.base_params.empty());  // the source defaults
  EXPECT_DOUBLE_EQ(*a100.baseline_us, 250.0);
  EXPECT_DOUBLE_EQ(*a100.speedup, 1.25);
  // Unchanged against the base: SAME, with both times.
  const Report same = report_from_lockfile(base, {}, &base);
  EXPECT_EQ(same.kernels.front().verdict, KernelVerdict::same);
}

// The row of an entry BLOCK=512 (66 us, its run's baseline 72 us) locked over an old entry
// BLOCK=256 of 60 us, `measured` saying how each was measured (timing, compiler).
KernelReport over_an_old_entry_of_60us(
    const std::function<void(LockEntry& old, LockEntry& now)>& measured) {
  Lockfile base;
  LockEntry old;
  old.params = {{"BLOCK", Value(256)}};
  old.time_us = 60.0;
  LockEntry now;
  now.params = {{"BLOCK", Value(512)}};
  now.time_us = 66.0;
  now.baseline_us = 72.0;
  measured(old, now);
  set_entry(base, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", old);
  Lockfile lock = base;
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", now);
  const Report r = report_from_lockfile(lock, {}, &base);
  EXPECT_EQ(r.kernels.size(), 1u);
  return r.kernels.at(0);
}

// An old entry timed from another L2 state (a clean L2 against a new entry tuned from a
// dirty one) has a time that does not compare: the new entry's own baseline, measured the
// same way in its run, is the row's baseline, and the evidence says why.
TEST(LockReport, AnOldEntryTimedAnotherWayIsNotTheBaseline) {
  // The old one's clean-L2 60 us is lower than any dirty-L2 time.
  const KernelReport k =
      over_an_old_entry_of_60us([](LockEntry&, LockEntry& now) { now.timing = "cold-dirty-l2"; });
  EXPECT_DOUBLE_EQ(*k.baseline_us, 72.0);
  EXPECT_EQ(k.verdict, KernelVerdict::faster);  // 72 -> 66 us; against 60 it looked slower
  EXPECT_NE(k.evidence.find("the old entry was timed from a clean L2, this one from a dirty one"),
            std::string::npos)
      << k.evidence;
}

// Nor does an old entry whose code another compiler made.
TEST(LockReport, AnOldEntryCompiledOtherwiseIsNotTheBaseline) {
  const KernelReport k =
      over_an_old_entry_of_60us([](LockEntry& old, LockEntry&) { old.compiler = "nvrtc"; });
  EXPECT_DOUBLE_EQ(*k.baseline_us, 72.0);
  EXPECT_EQ(k.verdict, KernelVerdict::faster);
  EXPECT_NE(k.evidence.find("the old entry's code was compiled by nvrtc, this one's by nvcc"),
            std::string::npos)
      << k.evidence;
}

// Nor does an old entry timed after an older revision of the L2 flush (the evict-last lines
// that outlived revision 2's made some winners look faster than they are).
TEST(LockReport, AnOldEntryTimedAfterAnotherFlushIsNotTheBaseline) {
  const KernelReport k =
      over_an_old_entry_of_60us([](LockEntry&, LockEntry& now) { now.flush = 3; });
  EXPECT_DOUBLE_EQ(*k.baseline_us, 72.0);
  EXPECT_EQ(k.verdict, KernelVerdict::faster);
  EXPECT_NE(k.evidence.find("the old entry was timed after the L2 flush of revision 2 or older, "
                            "this one after revision 3"),
            std::string::npos)
      << k.evidence;
}

// The run that locked an entry measured both sides: its row is judged on those two
// measurements, with the speedup's interval; other rows keep the recorded times, no interval.
TEST(LockReport, ARowTheRunLockedUsesTheRunsMeasurementsAndInterval) {
  Lockfile base;
  LockEntry old;
  old.params = {{"BLOCK", Value(256)}};
  old.time_us = 95.0;  // recorded by an earlier run
  set_entry(base, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", old);
  set_entry(base, "rmsnorm", "src/rmsnorm.cu", "sha256:y", "sm_90", "NVIDIA H200", old);
  Lockfile lock = base;
  LockEntry now;
  now.params = {{"BLOCK", Value(512)}};
  now.time_us = 70.0;
  now.baseline_us = 140.0;
  set_entry(lock, "softmax", "src/softmax.cu", "sha256:x", "sm_90", "NVIDIA H200", now);
  RunChange change;
  change.id = "softmax";
  change.arch = "sm_90";
  change.device = "NVIDIA H200";
  change.before = {98.0, 97.0, 99.0};  // the old entry, re-measured now
  change.after = {70.0, 69.5, 70.5};
  change.intervals = true;
  change.before_is_old_entry = true;
  const std::vector<RunChange> changes{change};
  const Report r = report_from_lockfile(lock, {}, &base, changes);
  ASSERT_EQ(r.kernels.size(), 2u);
  const KernelReport& rms = r.kernels[0];
  const KernelReport& soft = r.kernels[1];
  EXPECT_DOUBLE_EQ(*soft.baseline_us, 98.0);
  EXPECT_DOUBLE_EQ(*soft.time_us, 70.0);
  EXPECT_DOUBLE_EQ(*soft.speedup, 1.4);
  ASSERT_TRUE(soft.ratio_ci_low && soft.ratio_ci_high);
  EXPECT_LT(*soft.ratio_ci_low, 70.0 / 98.0);
  EXPECT_GT(*soft.ratio_ci_high, 70.0 / 98.0);
  EXPECT_EQ(soft.verdict, KernelVerdict::faster);
  EXPECT_NE(
      soft.evidence.find("98.0 us → 70.0 us (1.40x over the old entry, both measured in "
                         "this run, 95% CI " +
                         speedup_interval_text(*soft.ratio_ci_low, *soft.ratio_ci_high) + ")"),
      std::string::npos)
      << soft.evidence;
  EXPECT_NE(soft.evidence.find("parameters changed from BLOCK=256"), std::string::npos);
  EXPECT_FALSE(rms.ratio_ci_low);  // not locked by the run: recorded times, no interval
  // A change without intervals gives the run's times but makes none up.
  std::vector<RunChange> bare{change};
  bare.front().intervals = false;
  const Report no_ci = report_from_lockfile(lock, {}, &base, bare);
  EXPECT_DOUBLE_EQ(*no_ci.kernels[1].baseline_us, 98.0);
  EXPECT_FALSE(no_ci.kernels[1].ratio_ci_low);
  // A change for another device leaves the row alone.
  std::vector<RunChange> other{change};
  other.front().device = "NVIDIA H100";
  EXPECT_DOUBLE_EQ(*report_from_lockfile(lock, {}, &base, other).kernels[1].baseline_us, 95.0);
}

TEST(RatioText, OneWordingForEveryReport) {
  EXPECT_EQ(speedup_interval_text(0.5, 0.8), "1.25x..2.00x");
  EXPECT_EQ(speedup_text(143.0 / 70.1), "2.04x");
  EXPECT_EQ(ratio_interval_text(0.7704, 0.79), "0.770..0.790");
  EXPECT_EQ(p_value_text(0.6312), "0.631");
  EXPECT_EQ(p_value_text(0.0000108), "1.1e-05");
  EXPECT_EQ(percent_change(0.99996), "+0.0%");  // never "-0.0%"
  EXPECT_EQ(short_revision("3f2a9c1d4e5b6a7980112233445566778899aabb"), "3f2a9c1d4e5b");
  EXPECT_EQ(short_revision("origin/main"), "origin/main");
  EXPECT_EQ(short_revision("HEAD~1"), "HEAD~1");
  EXPECT_EQ(short_revision("3f2a9c1"), "3f2a9c1");
}

Recording recording_of(const std::string& kernel) {
  Recording rec;
  rec.kernel = kernel;
  rec.dims = {{"BLOCK", {Value(128), Value(256)}}};
  Outcome fast;
  fast.disposition = Disposition::passed;
  fast.time_us = 10.0;
  fast.samples_us = {9.0, 10.0, 11.0};
  rec.add({1}, fast);
  Outcome broken;
  broken.disposition = Disposition::incorrect;
  broken.detail = "wrong";
  rec.add({0}, broken);
  return rec;
}

TEST(ReplayMeasurer, DrawsRecordedRepeatsReproducibly) {
  ReplayMeasurer a({"sm_90", "NVIDIA H200"}, 3);
  ReplayMeasurer b({"sm_90", "NVIDIA H200"}, 3);
  a.add("head", recording_of("k"));
  b.add("head", recording_of("k"));
  const MeasureTarget t{"k", nullptr, ".", "head", {{"BLOCK", Value(256)}}, nullptr};
  const auto ma = a.measure(t);
  EXPECT_EQ(ma.disposition, Disposition::passed);
  EXPECT_EQ(ma.samples_us.size(), 5u);
  for (double s : ma.samples_us) EXPECT_TRUE(s == 9.0 || s == 10.0 || s == 11.0);
  EXPECT_EQ(ma.samples_us, b.measure(t).samples_us);
  EXPECT_EQ(a.identify()->device, "NVIDIA H200");
}

TEST(ReplayMeasurer, RecordedFailuresAndUnknownsAreNotPassed) {
  ReplayMeasurer m({"sm_90", "NVIDIA H200"}, 1);
  m.add("head", recording_of("k"));
  auto broken = m.measure({"k", nullptr, ".", "head", {{"BLOCK", Value(128)}}});
  EXPECT_EQ(broken.disposition, Disposition::incorrect);
  EXPECT_EQ(broken.detail, "wrong");
  EXPECT_EQ(m.measure({"k", nullptr, ".", "head", {{"BLOCK", Value(64)}}}).disposition,
            Disposition::invalid);
  EXPECT_EQ(m.measure({"k", nullptr, ".", "base", {{"BLOCK", Value(256)}}}).disposition,
            Disposition::invalid);
  EXPECT_EQ(m.measure({"other", nullptr, ".", "head", {{"BLOCK", Value(256)}}}).disposition,
            Disposition::invalid);
}

}  // namespace
}  // namespace kev
