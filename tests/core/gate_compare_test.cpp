#include <gtest/gtest.h>

#include "core/compare_gate.h"
#include "core/gate_fake_measurer.h"

namespace kev {
namespace {

using testing::FakeMeasurer;

const std::string kHash = "sha256:" + std::string(64, 'a');

KernelSpec spec_for(const std::string& id) {
  KernelSpec s;
  s.id = id;
  s.kernel = id;
  s.source = "src/" + id + ".cu";
  s.where = {s.source, 21, 1};
  s.params.push_back({"BLOCK", {Value(128), Value(256)}, {}});
  return s;
}

Lockfile lock_of(const std::string& id, std::int64_t block) {
  Lockfile lock;
  LockEntry e;
  e.params = {{"BLOCK", Value(block)}};
  e.time_us = 70.0;
  set_entry(lock, id, "src/" + id + ".cu", kHash, "sm_90", "NVIDIA H200", e);
  return lock;
}

struct CompareFixture : ::testing::Test {
  Lockfile base_lock = lock_of("softmax", 128);
  Lockfile head_lock = lock_of("softmax", 256);
  std::vector<KernelSpec> base_specs{spec_for("softmax")};
  std::vector<KernelSpec> head_specs{spec_for("softmax")};
  FakeMeasurer measurer;

  Report compare(int rounds = 10) {
    CompareInput in;
    in.base = {&base_lock, {}, "/tmp/base", {}};
    in.head = {&head_lock, {}, ".", {}};
    for (const auto& s : base_specs) in.base.specs.push_back(&s);
    for (const auto& s : head_specs) in.head.specs.push_back(&s);
    in.gpu = {"sm_90", "NVIDIA H200"};
    in.base_ref = "origin/main";
    in.options.rounds = rounds;
    return run_compare(in, measurer);
  }
};

TEST_F(CompareFixture, MeasuresInterleavedWithEachSidesLockedParameters) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  (void)compare(4);
  const std::vector<std::string> expected{"base:softmax", "head:softmax", "base:softmax",
                                          "head:softmax", "base:softmax", "head:softmax",
                                          "base:softmax", "head:softmax"};
  EXPECT_EQ(measurer.calls, expected);
  EXPECT_EQ(measurer.params_seen[0].at("BLOCK"), Value(128));
  EXPECT_EQ(measurer.params_seen[1].at("BLOCK"), Value(256));
}

// Both sides are timed one way: from a dirty L2 when the head's winner was tuned so, and
// from a clean one otherwise.
TEST_F(CompareFixture, BothSidesAreTimedAsTheHeadsWinnerWasTuned) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  (void)compare(2);
  EXPECT_EQ(measurer.dirty_seen, std::vector<bool>(4, false));
  head_lock.kernels.at("softmax").targets.at("sm_90").at("NVIDIA H200").timing = "cold-dirty-l2";
  measurer.dirty_seen.clear();
  (void)compare(2);
  EXPECT_EQ(measurer.dirty_seen, std::vector<bool>(4, true));
  EXPECT_EQ(measurer.charged_seen, std::vector<bool>(8, false));
  // With its write-back charged: both sides charged, from a clean L2.
  head_lock.kernels.at("softmax").targets.at("sm_90").at("NVIDIA H200").timing =
      "cold-l2+write-back";
  measurer.dirty_seen.clear();
  measurer.charged_seen.clear();
  (void)compare(2);
  EXPECT_EQ(measurer.dirty_seen, std::vector<bool>(4, false));
  EXPECT_EQ(measurer.charged_seen, std::vector<bool>(4, true));
}

// Both sides' code comes from the compiler the head's winner was tuned with.
TEST_F(CompareFixture, BothSidesAreCompiledAsTheHeadsWinnerWas) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  (void)compare(2);
  EXPECT_EQ(measurer.compiler_seen, std::vector<DeviceCodeCompiler>(4, DeviceCodeCompiler::nvcc));
  head_lock.kernels.at("softmax").targets.at("sm_90").at("NVIDIA H200").compiler = "nvrtc";
  measurer.compiler_seen.clear();
  (void)compare(2);
  EXPECT_EQ(measurer.compiler_seen, std::vector<DeviceCodeCompiler>(4, DeviceCodeCompiler::nvrtc));
}

TEST_F(CompareFixture, UnchangedIsSame) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = compare();
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::same) << r.kernels[0].evidence;
  EXPECT_EQ(r.base_ref, "origin/main");
  EXPECT_EQ(count_failures(r), 0u);
}

TEST_F(CompareFixture, TenPercentSlowerHeadIsSlowerWithEvidence) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 77.0, 0.01);
  const Report r = compare();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::slower) << k.evidence;
  EXPECT_EQ(k.line, 21);
  EXPECT_EQ(k.base_params.at("BLOCK"), Value(128));
  ASSERT_TRUE(k.ratio && k.p_value);
  EXPECT_NEAR(*k.ratio, 1.1, 0.02);
  EXPECT_LT(*k.p_value, 0.05);
  EXPECT_NE(k.evidence.find("Mann-Whitney"), std::string::npos);
  EXPECT_NE(k.evidence.find("parameters changed from BLOCK=128"), std::string::npos) << k.evidence;
  EXPECT_EQ(count_failures(r), 1u);
}

TEST_F(CompareFixture, FasterHeadIsFaster) {
  measurer.set("base", "softmax", 100.0, 0.01);
  measurer.set("head", "softmax", 60.0, 0.01);
  EXPECT_EQ(compare().kernels.at(0).verdict, KernelVerdict::faster);
}

TEST_F(CompareFixture, NoisyMeasurementsAreUnsureAndDoNotFail) {
  measurer.set("base", "softmax", 70.0, 0.25);
  measurer.set("head", "softmax", 74.0, 0.25);
  const Report r = compare(6);
  EXPECT_EQ(r.kernels.at(0).verdict, KernelVerdict::unsure) << r.kernels.at(0).evidence;
  EXPECT_EQ(count_failures(r), 0u);
}

TEST_F(CompareFixture, HeadThatFailsVerificationFails) {
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.fail("head", "softmax", Disposition::incorrect, "wrong values");
  const Report r = compare();
  const auto& k = r.kernels.at(0);
  EXPECT_EQ(k.verdict, KernelVerdict::failed);
  EXPECT_NE(k.evidence.find("incorrect"), std::string::npos);
}

TEST_F(CompareFixture, KernelNewInTheHeadIsMissingNotMeasured) {
  head_specs.push_back(spec_for("rmsnorm"));
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = compare(3);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].id, "rmsnorm");
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::missing);
  EXPECT_NE(r.kernels[0].evidence.find("new in the head"), std::string::npos);
  EXPECT_EQ(measurer.calls.size(), 6u);
}

TEST_F(CompareFixture, WithoutSpecsTheLockfilesNameTheKernels) {
  base_specs.clear();
  head_specs.clear();
  measurer.set("base", "softmax", 70.0, 0.01);
  measurer.set("head", "softmax", 70.0, 0.01);
  const Report r = compare();
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].source, "src/softmax.cu");
  EXPECT_EQ(r.kernels[0].verdict, KernelVerdict::same);
}

}  // namespace
}  // namespace kev
