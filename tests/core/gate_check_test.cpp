#include <gtest/gtest.h>

#include "core/check.h"
#include "core/gate_fake_measurer.h"

namespace kev {
namespace {

using testing::FakeMeasurer;

const std::string kHash = "sha256:" + std::string(64, 'a');
const std::string kOtherHash = "sha256:" + std::string(64, 'b');

KernelSpec spec_for(const std::string& id, int line = 12) {
  KernelSpec s;
  s.id = id;
  s.kernel = id;
  s.source = "src/" + id + ".cu";
  s.where = {s.source, line, 1};
  s.params.push_back({"BLOCK", {Value(128), Value(256), Value(512)}, {}});
  return s;
}

LockEntry entry(std::int64_t block, double time_us) {
  LockEntry e;
  e.params = {{"BLOCK", Value(block)}};
  e.time_us = time_us;
  e.baseline_us = 2 * time_us;
  e.tuned_with = "kernelevo 0.1.0, strategy auto, 96 evaluations";
  return e;
}

struct CheckFixture : ::testing::Test {
  Lockfile lock;
  std::vector<KernelSpec> specs;
  FakeMeasurer measurer;

  void lock_kernel(const std::string& id, std::int64_t block, double time_us,
                   const std::string& arch = "sm_90", const std::string& device = "NVIDIA H200") {
    set_entry(lock, id, "src/" + id + ".cu", kHash, arch, device, entry(block, time_us));
  }
  Report check(CheckOptions options = {}, std::string current_hash = kHash) {
    CheckInput in;
    in.lock = &lock;
    for (const auto& s : specs) in.specs.push_back(&s);
    in.gpu = {"sm_90", "NVIDIA H200"};
    in.source_hash = [current_hash](const std::string&) -> std::optional<std::string> {
      return current_hash;
    };
    in.options = options;
    return run_check(in, measurer);
  }
};

// A winner tuned from a dirty L2 is checked from a dirty L2: its recorded time was taken
// so, and a clean start would make it look faster than it is.
TEST_F(CheckFixture, AnEntryTunedFromADirtyL2IsMeasuredSo) {
  specs = {spec_for("softmax"), spec_for("layernorm")};
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("layernorm", 256, 70.0);
  lock.kernels.at("layernorm").targets.at("sm_90").at("NVIDIA H200").timing = "cold-dirty-l2";
  measurer.set("head", "softmax", 70.0, 0.01);
  measurer.set("head", "layernorm", 70.0, 0.01);
  check();
  ASSERT_EQ(measurer.calls.size(), measurer.dirty_seen.size());
  for (std::size_t i = 0; i < measurer.calls.size(); ++i)
    EXPECT_EQ(measurer.dirty_seen[i], measurer.calls[i] == "head:layernorm") << measurer.calls[i];
}

// A winner tuned with its write-back charged is checked so; the others are not charged.
TEST_F(CheckFixture, AnEntryTunedWithItsWriteBackChargedIsMeasuredSo) {
  specs = {spec_for("softmax"), spec_for("layernorm")};
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("layernorm", 256, 70.0);
  lock.kernels.at("layernorm").targets.at("sm_90").at("NVIDIA H200").timing = "cold-l2+write-back";
  measurer.set("head", "softmax", 70.0, 0.01);
  measurer.set("head", "layernorm", 70.0, 0.01);
  check();
  ASSERT_EQ(measurer.calls.size(), measurer.charged_seen.size());
  for (std::size_t i = 0; i < measurer.calls.size(); ++i) {
    EXPECT_EQ(measurer.charged_seen[i], measurer.calls[i] == "head:layernorm") << measurer.calls[i];
    EXPECT_FALSE(measurer.dirty_seen[i]) << measurer.calls[i];
  }
}

// A winner whose code NVRTC compiled (tune --compiler nvrtc) is checked compiled so; the
// others with nvcc, the build's compiler.
TEST_F(CheckFixture, AnEntryCompiledByNvrtcIsMeasuredSo) {
  specs = {spec_for("softmax"), spec_for("layernorm")};
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("layernorm", 256, 70.0);
  lock.kernels.at("layernorm").targets.at("sm_90").at("NVIDIA H200").compiler = "nvrtc";
  measurer.set("head", "softmax", 70.0, 0.01);
  measurer.set("head", "layernorm", 70.0, 0.01);
  check();
  ASSERT_EQ(measurer.calls.size(), measurer.compiler_seen.size());
  for (std::size_t i = 0; i < measurer.calls.size(); ++i)
    EXPECT_EQ(measurer.compiler_seen[i] == DeviceCodeCompiler::nvrtc,
              measurer.calls[i] == "head:layernorm")
        << measurer.calls[i];
}

TEST_F(CheckFixture, UnchangedKernelPassesWithItsNumbers) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check();
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  EXPECT_EQ(k.verdict, KernelVerdict::pass) << k.evidence;
  EXPECT_EQ(k.source, "src/softmax.cu");
  EXPECT_EQ(k.line, 12);
  EXPECT_EQ(k.params.at("BLOCK"), Value(256));
  ASSERT_TRUE(k.time_us && k.baseline_us && k.ratio);
  EXPECT_NEAR(*k.time_us, 70.0, 1.0);
  EXPECT_DOUBLE_EQ(*k.baseline_us, 70.0);
  EXPECT_EQ(k.samples, 10);
  EXPECT_EQ(count_failures(r), 0u);
  // one round per measurement, all on the locked parameters
  EXPECT_EQ(measurer.calls.size(), 10u);
  for (const auto& p : measurer.params_seen) EXPECT_EQ(p.at("BLOCK"), Value(256));
}

TEST_F(CheckFixture, UnchangedKernelPassesEveryRunOutOfFive) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    measurer = FakeMeasurer(seed);
    measurer.set("head", "softmax", 70.0, 0.02);
    EXPECT_EQ(check().kernels.at(0).verdict, KernelVerdict::pass) << "seed " << seed;
  }
}

// An entry timed after an older L2 flush (one that does not say) that now measures slower
// still fails: the evidence adds that the flush changed, so a slowdown with no change to the
// code reads as a call to re-tune. One timed after this kernelevo's flush gets no such note.
TEST_F(CheckFixture, ASlowdownOfAnEntryTimedAfterAnOlderFlushSaysSo) {
  specs = {spec_for("softmax"), spec_for("layernorm")};
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("layernorm", 256, 70.0);
  lock.kernels.at("layernorm").targets.at("sm_90").at("NVIDIA H200").flush = kFlushRevision;
  measurer.set("head", "softmax", 84.0, 0.01);
  measurer.set("head", "layernorm", 84.0, 0.01);
  const Report r = check();
  const auto& old = r.kernels.at(1).id == "softmax" ? r.kernels.at(1) : r.kernels.at(0);
  const auto& now = r.kernels.at(1).id == "softmax" ? r.kernels.at(0) : r.kernels.at(1);
  EXPECT_EQ(old.verdict, KernelVerdict::slower);
  EXPECT_NE(old.evidence.find("; the recorded time was taken after the L2 flush of revision 2 "
                              "or older and this kernelevo flushes as revision 3: if nothing "
                              "else changed, re-tune (docs/lockfile.md)"),
            std::string::npos)
      << old.evidence;
  EXPECT_EQ(now.verdict, KernelVerdict::slower);
  EXPECT_EQ(now.evidence.find("flush"), std::string::npos) << now.evidence;
}

TEST_F(CheckFixture, ConfirmedSlowdownFailsWithEvidence) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.set("head", "softmax", 84.0, 0.01);  // 20% slower
  const Report r = check();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::slower);
  EXPECT_NE(k.evidence.find("slower than allowed +5.0%"), std::string::npos) << k.evidence;
  EXPECT_NEAR(*k.ratio, 1.2, 0.01);
  EXPECT_NE(k.evidence.find("70.0 us recorded"), std::string::npos) << k.evidence;
  ASSERT_TRUE(k.ratio_ci_low && k.p_value);
  EXPECT_GT(*k.ratio_ci_low, 1.05);
  EXPECT_LT(*k.p_value, 0.01);
  EXPECT_EQ(count_failures(r), 1u);
}

TEST_F(CheckFixture, SmallSlowdownWithinTheThresholdPasses) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.set("head", "softmax", 72.0, 0.005);  // +2.9%
  EXPECT_EQ(check().kernels.at(0).verdict, KernelVerdict::pass);
}

TEST_F(CheckFixture, MinimumAbsoluteChangeProtectsTinyKernels) {
  specs = {spec_for("tiny")};
  lock_kernel("tiny", 256, 4.0);
  measurer.set("head", "tiny", 4.6, 0.005);  // +15%, but 0.6 us
  CheckOptions o;
  o.min_abs_us = 1.0;
  EXPECT_NE(check(o).kernels.at(0).verdict, KernelVerdict::slower);
  o.min_abs_us = 0.0;
  EXPECT_EQ(check(o).kernels.at(0).verdict, KernelVerdict::slower);
}

TEST_F(CheckFixture, WinnerThatNoLongerVerifiesFails) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.fail("head", "softmax", Disposition::incorrect, "y[17]: 0.5 vs 0.25");
  const Report r = check();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::failed);
  EXPECT_NE(k.evidence.find("incorrect: y[17]"), std::string::npos) << k.evidence;
  EXPECT_EQ(measurer.calls.size(), 1u);  // no more rounds after a failure
}

TEST_F(CheckFixture, LockedValueTheSpecNoLongerAllowsFails) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 1024, 70.0);  // 1024 is not listed
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::failed);
  EXPECT_TRUE(measurer.calls.empty());
}

// Each value listed, the combination excluded: check fails it without measuring, naming the
// constraint, as the build refuses to compile it.
TEST_F(CheckFixture, LockedCombinationBreakingAConstraintFails) {
  KernelSpec spec = spec_for("softmax");
  spec.constraints.push_back(*Expr::parse("BLOCK <= 256", {"src/softmax.cu", 20, 5}));
  specs = {spec};
  lock_kernel("softmax", 512, 70.0);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::failed);
  EXPECT_NE(k.evidence.find("BLOCK=512 break the constraint \"BLOCK <= 256\""), std::string::npos)
      << k.evidence;
  EXPECT_TRUE(measurer.calls.empty());
}

TEST_F(CheckFixture, StaleEntryIsRemeasuredAndReported) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check({}, kOtherHash);
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::stale);
  EXPECT_NE(k.evidence.find("source changed"), std::string::npos);
  EXPECT_EQ(measurer.calls.size(), 10u);
}

TEST_F(CheckFixture, StaleAndSlowerFails) {
  specs = {spec_for("softmax")};
  lock_kernel("softmax", 256, 70.0);
  measurer.set("head", "softmax", 90.0, 0.01);
  const Report r = check({}, kOtherHash);
  EXPECT_EQ(r.kernels.at(0).verdict, KernelVerdict::slower);
  EXPECT_EQ(count_failures(r), 1u);
}

TEST_F(CheckFixture, MarkedKernelWithoutEntryForThisGpuIsMissing) {
  specs = {spec_for("softmax"), spec_for("rmsnorm", 40)};
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("rmsnorm", 256, 50.0, "sm_90", "NVIDIA H100");
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check();
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].id, "rmsnorm");
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::missing);
  EXPECT_EQ(r.kernels[0].line, 40);
  EXPECT_NE(r.kernels[0].evidence.find("NVIDIA H100"), std::string::npos) << r.kernels[0].evidence;
  EXPECT_EQ(r.kernels[1].verdict, KernelVerdict::pass);
  EXPECT_EQ(count_failures(r), 0u);
}

TEST_F(CheckFixture, ArchSpecificKernelIsCheckedUnderItsOwnArch) {
  specs = {spec_for("gemm")};
  specs[0].arch = "sm_90a";
  lock_kernel("gemm", 256, 400.0, "sm_90a");
  measurer.set("head", "gemm", 400.0, 0.01);
  const Report r = check();
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::pass) << r.kernels[0].evidence;
  EXPECT_EQ(r.kernels[0].arch, "sm_90a");

  lock = Lockfile{};
  lock_kernel("gemm", 256, 400.0, "sm_90");  // a portable entry is not the sm_90a code's
  const Report missing = check();
  ASSERT_EQ(missing.kernels.size(), 1u);
  EXPECT_EQ(missing.kernels[0].verdict, KernelVerdict::missing);
  EXPECT_NE(missing.kernels[0].evidence.find("no locked entry for sm_90a / NVIDIA H200"),
            std::string::npos)
      << missing.kernels[0].evidence;
}

TEST_F(CheckFixture, WithoutSpecsTheLockfileEntriesAreChecked) {
  lock_kernel("softmax", 256, 70.0);
  lock_kernel("other_gpu", 256, 70.0, "sm_80", "NVIDIA A100");
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = check();
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].source, "src/softmax.cu");
  EXPECT_EQ(r.kernels[0].line, 0);
}

TEST(SignTest, ExactTailProbabilities) {
  EXPECT_DOUBLE_EQ(sign_test_p(0, 10), 1.0);
  EXPECT_NEAR(sign_test_p(10, 10), 1.0 / 1024.0, 1e-12);
  EXPECT_NEAR(sign_test_p(9, 10), 11.0 / 1024.0, 1e-12);
  EXPECT_NEAR(sign_test_p(5, 10), 638.0 / 1024.0, 1e-12);
}

TEST(JudgeAgainstRecorded, OneSlowRoundIsNotEnough) {
  std::vector<double> medians(10, 70.0);
  medians[3] = 140.0;
  EXPECT_EQ(judge_against_recorded(medians, 70.0, {}).verdict, KernelVerdict::pass);
}

TEST(JudgeAgainstRecorded, ConfidentlyFasterIsFaster) {
  std::vector<double> medians{50, 51, 49, 50, 50.5, 49.5, 50, 50, 51, 49};
  const auto j = judge_against_recorded(medians, 70.0, {});
  EXPECT_EQ(j.verdict, KernelVerdict::faster);
  EXPECT_NEAR(j.ratio, 50.0 / 70.0, 1e-9);
}

}  // namespace
}  // namespace kev
