#include "core/lockfile.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

const std::string kHashA = "sha256:" + std::string(64, 'a');
const std::string kHashB = "sha256:" + std::string(64, 'b');

LockEntry entry(std::int64_t block, double time_us, bool is_default = false) {
  LockEntry e;
  e.params = {{"BLOCK", Value(block)}};
  e.time_us = time_us;
  e.baseline_us = 100.0;
  e.tuned_with = "test";
  e.is_default = is_default;
  return e;
}

Lockfile lock_with(const std::string& arch, const std::string& device, LockEntry e,
                   const std::string& hash = kHashA) {
  Lockfile lock;
  set_entry(lock, "k", "src/k.cu", hash, arch, device, std::move(e));
  return lock;
}

TEST(LockArch, TheSpecsArchElseTheGpus) {
  KernelSpec spec;
  EXPECT_EQ(lock_arch(&spec, "sm_90"), "sm_90");
  EXPECT_EQ(lock_arch(nullptr, "sm_90"), "sm_90");
  spec.arch = "sm_90a";
  EXPECT_EQ(lock_arch(&spec, "sm_90"), "sm_90a");
}

TEST(Arch, ParsesVersionsAndSuffixes) {
  auto a = parse_arch("sm_90");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->major, 9);
  EXPECT_EQ(a->minor, 0);
  auto b = parse_arch("sm_120f");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->major, 12);
  EXPECT_EQ(b->minor, 0);
  EXPECT_EQ(b->suffix, "f");
  EXPECT_EQ(parse_arch("sm_86")->to_string(), "sm_86");
  EXPECT_EQ(parse_arch("sm_90a")->to_string(), "sm_90a");
  for (const char* bad :
       {"sm90", "sm_", "sm_9", "sm_09", "compute_90", "sm_9x", "sm_1000", "sm_90b"})
    EXPECT_FALSE(parse_arch(bad)) << bad;
}

TEST(Lookup, NamedDeviceThenOnlyDeviceThenDefault) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", entry(512, 70));
  LockChoice only = lookup(lock, "k", "sm_90", std::string("NVIDIA H100 80GB HBM3"));
  ASSERT_TRUE(only.entry);
  EXPECT_EQ(only.device, "NVIDIA H200");
  EXPECT_EQ(only.match, LockMatch::only_device);

  set_entry(lock, "k", "src/k.cu", kHashA, "sm_90", "NVIDIA H100 80GB HBM3", entry(256, 80));
  LockChoice named = lookup(lock, "k", "sm_90", std::string("NVIDIA H100 80GB HBM3"));
  EXPECT_EQ(named.match, LockMatch::named_device);
  EXPECT_EQ(named.entry->params.at("BLOCK"), Value(256));

  // No device named: the first device locked for sm_90 became its default.
  LockChoice dflt = lookup(lock, "k", "sm_90");
  EXPECT_EQ(dflt.match, LockMatch::default_device);
  EXPECT_EQ(dflt.device, "NVIDIA H200");
  EXPECT_NE(dflt.why.find("default device"), std::string::npos) << dflt.why;
}

TEST(Lookup, SeveralDevicesWithoutDefaultFallBackAndSaySo) {
  Lockfile lock = lock_with("sm_90", "A", entry(512, 70));
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_90", "B", entry(256, 80));
  lock.kernels["k"].targets["sm_90"]["A"].is_default = false;
  LockChoice c = lookup(lock, "k", "sm_90");
  EXPECT_EQ(c.entry, nullptr);
  EXPECT_EQ(c.match, LockMatch::none);
  EXPECT_NE(c.why.find("skipped sm_90"), std::string::npos) << c.why;
}

TEST(Lookup, NearestLowerMinorOfTheSameMajor) {
  Lockfile lock = lock_with("sm_80", "NVIDIA A100-SXM4-80GB", entry(128, 50));
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_86", "NVIDIA RTX A6000", entry(256, 60));
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_75", "Tesla T4", entry(64, 90));

  LockChoice c89 = lookup(lock, "k", "sm_89");
  ASSERT_TRUE(c89.entry);
  EXPECT_EQ(c89.arch, "sm_86");
  EXPECT_TRUE(c89.lower_arch);
  LockChoice c80 = lookup(lock, "k", "sm_80");
  EXPECT_EQ(c80.arch, "sm_80");
  EXPECT_FALSE(c80.lower_arch);
  // Another major never matches: sm_75's entry is not used for sm_70, nor sm_86's for sm_90.
  EXPECT_EQ(lookup(lock, "k", "sm_70").entry, nullptr);
  EXPECT_EQ(lookup(lock, "k", "sm_90").entry, nullptr);
  EXPECT_EQ(lookup(lock, "other", "sm_80").entry, nullptr);
}

TEST(Lookup, ArchSpecificTargets) {
  Lockfile lock = lock_with("sm_90a", "NVIDIA H200", entry(1024, 40));
  // A portable sm_90 build must not take code tuned with sm_90a features.
  EXPECT_EQ(lookup(lock, "k", "sm_90").entry, nullptr);
  EXPECT_EQ(lookup(lock, "k", "sm_90a").arch, "sm_90a");
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_90", "NVIDIA H200", entry(512, 50));
  EXPECT_EQ(lookup(lock, "k", "sm_90a").arch, "sm_90a");  // its own entry first
  EXPECT_EQ(lookup(lock, "k", "sm_90").arch, "sm_90");
  Lockfile plain = lock_with("sm_90", "NVIDIA H200", entry(512, 50));
  EXPECT_EQ(lookup(plain, "k", "sm_90a").arch, "sm_90");  // sm_90a falls back to sm_90
}

KernelSpec spec_with_block() {
  KernelSpec spec;
  spec.id = "k";
  spec.source = "src/k.cu";
  spec.where = {"src/k.cu", 12, 1};
  spec.params.push_back({"BLOCK", {Value(128), Value(256), Value(512)}, {"src/k.cu", 16, 3}});
  spec.params.push_back({"VEC", {Value(1), Value(2), Value(4)}, {"src/k.cu", 17, 3}});
  spec.params.push_back(
      {"LOAD", {Value(std::string("float4")), Value(std::string("float2"))}, {"src/k.cu", 18, 3}});
  return spec;
}

TEST(CheckParams, AcceptsListedValuesAndReportsMissingOnes) {
  const KernelSpec spec = spec_with_block();
  ParamSet p{{"BLOCK", Value(256)}, {"LOAD", Value(std::string("float2"))}};
  auto r = check_params(p, spec, "lock: k");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->missing, std::vector<std::string>{"VEC"});
  // An integer-valued float read from JSON matches the integer value.
  ParamSet f{{"BLOCK", Value(256.0)}};
  EXPECT_TRUE(check_params(f, spec, "lock: k").ok());
}

TEST(CheckParams, RefusesValuesOutsideTheSpec) {
  const KernelSpec spec = spec_with_block();
  struct Case {
    ParamSet params;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"BLOCK", Value(384)}},
       "error: lock: k: BLOCK = '384' is not one of the values [128, 256, 512] listed at "
       "src/k.cu:16:3"},
      {{{"BLOCK", Value(std::string("256); system(\"rm -rf /\"); //"))}},
       "error: lock: k: BLOCK = '256); system(\"rm -rf /\"); //' is not one of the values "
       "[128, 256, 512] listed at src/k.cu:16:3"},
      {{{"LOAD", Value(std::string("float4 __attribute__((x))"))}},
       "error: lock: k: LOAD = 'float4 __attribute__((x))' is not one of the values "
       "[float4, float2] listed at src/k.cu:18:3"},
      {{{"LOAD", Value(4)}},
       "error: lock: k: LOAD = '4' is not one of the values [float4, float2] listed at "
       "src/k.cu:18:3"},
      {{{"GRID", Value(1)}},
       "error: lock: k: 'GRID' is not a parameter of kernel 'k' (src/k.cu:12:1)"},
      {{{"BLOCK", Value(std::string(100000, 'x'))}},
       "error: lock: k: BLOCK = '" + std::string(40, 'x') +
           "...' is not one of the values [128, 256, 512] listed at src/k.cu:16:3"},
  };
  for (const Case& c : cases) {
    auto r = check_params(c.params, spec, "lock: k");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().to_string(), c.message);
  }
}

KernelSpec spec_with_constraints() {
  KernelSpec spec = spec_with_block();
  spec.constraints.push_back(*Expr::parse("BLOCK * VEC <= 1024", {"src/k.cu", 20, 7}));
  spec.constraints.push_back(*Expr::parse("BLOCK <= cols", {"src/k.cu", 21, 7}));
  spec.problems.push_back({{{"cols", 4096}}, {}});
  spec.problems.push_back({{{"cols", 256}}, {}});
  return spec;
}

// Each locked value listed is not enough: a lockfile (one from a pull request, say) could
// lock a combination the constraints exclude, which no tune ever ran.
TEST(CheckConstraints, TheConfigurationABuildCompilesMustSatisfyTheConstraints) {
  const KernelSpec spec = spec_with_constraints();
  const ParamSet good{
      {"BLOCK", Value(256)}, {"VEC", Value(4)}, {"LOAD", Value(std::string("float4"))}};
  EXPECT_TRUE(check_constraints(good, spec, "lock: k").ok());
  const ParamSet wide{
      {"BLOCK", Value(512)}, {"VEC", Value(4)}, {"LOAD", Value(std::string("float4"))}};
  auto r = check_constraints(wide, spec, "lock: k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(),
            "src/k.cu:20:7: error: lock: k: BLOCK=512, LOAD=float4, VEC=4 break the constraint "
            "\"BLOCK * VEC <= 1024\"");
  // A constraint on problem sizes must hold at every problem of the spec.
  const ParamSet over{
      {"BLOCK", Value(512)}, {"VEC", Value(1)}, {"LOAD", Value(std::string("float4"))}};
  r = check_constraints(over, spec, "lock: k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(),
            "src/k.cu:21:7: error: lock: k: BLOCK=512, LOAD=float4, VEC=1 break the constraint "
            "\"BLOCK <= cols\" at cols=256");
}

TEST(SetEntry, FirstDeviceIsDefaultAndReplacementKeepsTheMark) {
  Lockfile lock = lock_with("sm_90", "A", entry(128, 70));
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_90", "B", entry(256, 60));
  EXPECT_TRUE(lock.kernels["k"].targets["sm_90"]["A"].is_default);
  EXPECT_FALSE(lock.kernels["k"].targets["sm_90"]["B"].is_default);
  set_entry(lock, "k", "src/k.cu", kHashA, "sm_90", "A", entry(512, 65));
  EXPECT_TRUE(lock.kernels["k"].targets["sm_90"]["A"].is_default);
  EXPECT_EQ(lock.kernels["k"].targets["sm_90"]["A"].params.at("BLOCK"), Value(512));
}

TEST(ShouldReplace, NeedsTwoPercentAndSeparateIntervals) {
  const Measured locked{100.0, 99.0, 101.0};
  EXPECT_TRUE(should_replace(locked, {97.0, 96.5, 97.5}));
  EXPECT_FALSE(should_replace(locked, {98.5, 98.0, 98.9}));  // only 1.5% faster
  EXPECT_FALSE(should_replace(locked, {97.0, 95.0, 99.5}));  // intervals overlap
  EXPECT_FALSE(should_replace(locked, {103.0, 102.0, 104.0}));
  EXPECT_TRUE(should_replace(locked, {98.5, 98.0, 98.9}, ReplaceRule{0.01}));
  Outcome o;
  o.disposition = Disposition::passed;
  o.time_us = 90.0;
  o.ci_low_us = 89.0;
  o.ci_high_us = 91.0;
  ASSERT_TRUE(measured(o));
  EXPECT_TRUE(should_replace(locked, *measured(o)));
  o.disposition = Disposition::incorrect;
  EXPECT_FALSE(measured(o));
}

TEST(Merge, DisjointKernelsAndDevicesAreUnited) {
  Lockfile a = lock_with("sm_90", "NVIDIA H200", entry(512, 70));
  Lockfile b = lock_with("sm_80", "NVIDIA A100", entry(256, 90));
  set_entry(b, "other", "src/o.cu", kHashB, "sm_90", "NVIDIA H200", entry(64, 10));
  MergeResult m = merge(a, b);
  EXPECT_TRUE(m.conflicts.empty());
  EXPECT_EQ(m.merged.kernels.size(), 2u);
  EXPECT_EQ(m.merged.kernels["k"].targets.size(), 2u);
  EXPECT_TRUE(m.merged.kernels["k"].targets["sm_80"]["NVIDIA A100"].is_default);
  // Merging is idempotent.
  EXPECT_EQ(merge(m.merged, m.merged).merged, m.merged);
  EXPECT_TRUE(merge(m.merged, b).conflicts.empty());
}

TEST(Merge, SameSlotDifferentParamsFasterWinsAndIsReported) {
  Lockfile a = lock_with("sm_90", "NVIDIA H200", entry(512, 70));
  Lockfile b = lock_with("sm_90", "NVIDIA H200", entry(256, 65));
  MergeResult m = merge(a, b);
  ASSERT_EQ(m.conflicts.size(), 1u);
  EXPECT_EQ(m.conflicts[0].arch, "sm_90");
  EXPECT_EQ(m.conflicts[0].device, "NVIDIA H200");
  EXPECT_EQ(m.conflicts[0].resolution,
            "kept incoming {BLOCK=256} (65.0 us) over {BLOCK=512} (70.0 us): faster wins");
  const LockEntry& kept = m.merged.kernels["k"].targets["sm_90"]["NVIDIA H200"];
  EXPECT_EQ(kept.params.at("BLOCK"), Value(256));
  EXPECT_TRUE(kept.is_default);  // the slot's default mark survives the replacement

  MergeResult reverse = merge(b, a);
  EXPECT_EQ(reverse.merged.kernels["k"].targets["sm_90"]["NVIDIA H200"].params.at("BLOCK"),
            Value(256));
  EXPECT_EQ(reverse.conflicts.size(), 1u);
  // A tie keeps base's entry.
  Lockfile c = lock_with("sm_90", "NVIDIA H200", entry(128, 70));
  EXPECT_EQ(merge(a, c).merged, a);
}

// Times taken from another L2 state, or of another compiler's code, do not compare: the
// later file's entry is kept whatever the times, and the conflict says why.
TEST(Merge, EntriesMeasuredOtherwiseKeepTheLaterFile) {
  Lockfile a = lock_with("sm_90", "NVIDIA H200", entry(512, 60));
  LockEntry nvrtc = entry(256, 65);
  nvrtc.compiler = "nvrtc";
  Lockfile b = lock_with("sm_90", "NVIDIA H200", nvrtc);
  MergeResult m = merge(a, b);
  ASSERT_EQ(m.conflicts.size(), 1u);
  EXPECT_EQ(m.conflicts[0].resolution,
            "kept incoming {BLOCK=256} (65.0 us) over {BLOCK=512} (60.0 us): its code was "
            "compiled by nvrtc, the other's by nvcc, so the times do not compare; the later file "
            "wins");
  const LockEntry& kept = m.merged.kernels["k"].targets["sm_90"]["NVIDIA H200"];
  EXPECT_EQ(kept.params.at("BLOCK"), Value(256));
  EXPECT_EQ(kept.compiler, "nvrtc");
  EXPECT_TRUE(kept.is_default);

  LockEntry dirty = entry(128, 70);
  dirty.timing = "cold-dirty-l2";
  Lockfile c = lock_with("sm_90", "NVIDIA H200", dirty);
  MergeResult d = merge(c, a);
  ASSERT_EQ(d.conflicts.size(), 1u);
  EXPECT_EQ(d.conflicts[0].resolution,
            "kept incoming {BLOCK=512} (60.0 us) over {BLOCK=128} (70.0 us): it was timed from a "
            "clean L2, the other from a dirty one, so the times do not compare; the later file "
            "wins");
  EXPECT_EQ(d.merged.kernels["k"].targets["sm_90"]["NVIDIA H200"].timing, "");

  LockEntry reflushed = entry(1024, 80);
  reflushed.flush = 3;
  MergeResult f = merge(a, lock_with("sm_90", "NVIDIA H200", reflushed));
  ASSERT_EQ(f.conflicts.size(), 1u);
  EXPECT_EQ(f.conflicts[0].resolution,
            "kept incoming {BLOCK=1024} (80.0 us) over {BLOCK=512} (60.0 us): it was timed after "
            "the L2 flush of revision 3, the other after revision 2 or older, so the times do not "
            "compare; the later file wins");
  EXPECT_EQ(f.merged.kernels["k"].targets["sm_90"]["NVIDIA H200"].flush, 3);
}

// The one check behind both: the L2 state first, then the compiler, each side named in order.
TEST(MeasuredOtherwise, NamesTheL2StateFirstThenTheCompiler) {
  const LockEntry clean = entry(512, 60);
  EXPECT_FALSE(measured_otherwise(clean, entry(256, 50)).has_value());
  LockEntry dirty_nvrtc = entry(256, 50);
  dirty_nvrtc.timing = "cold-dirty-l2";
  dirty_nvrtc.compiler = "nvrtc";
  const auto l2 = measured_otherwise(clean, dirty_nvrtc);
  ASSERT_TRUE(l2.has_value());
  EXPECT_EQ(l2->kind, MeasuredOtherwise::Kind::l2_state);
  EXPECT_EQ(l2->first, "clean");
  EXPECT_EQ(l2->second, "dirty");
  LockEntry nvrtc = entry(256, 50);
  nvrtc.compiler = "nvrtc";
  const auto code = measured_otherwise(nvrtc, clean);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->kind, MeasuredOtherwise::Kind::compiler);
  EXPECT_EQ(code->first, "nvrtc");
  EXPECT_EQ(code->second, "nvcc");
  // Then the flush: an entry that does not say was timed after revision 2 or an older one.
  LockEntry reflushed = entry(256, 50);
  reflushed.flush = 3;
  const auto flush = measured_otherwise(clean, reflushed);
  ASSERT_TRUE(flush.has_value());
  EXPECT_EQ(flush->kind, MeasuredOtherwise::Kind::flush);
  EXPECT_EQ(flush->first, "revision 2 or older");
  EXPECT_EQ(flush->second, "revision 3");
  EXPECT_FALSE(measured_otherwise(reflushed, reflushed).has_value());
  // Charged its write-back is another way to time from a clean L2.
  LockEntry charged = entry(256, 50);
  charged.timing = "cold-l2+write-back";
  const auto write_back = measured_otherwise(clean, charged);
  ASSERT_TRUE(write_back.has_value());
  EXPECT_EQ(write_back->kind, MeasuredOtherwise::Kind::l2_state);
  EXPECT_EQ(write_back->first, "clean");
  EXPECT_EQ(write_back->second, "clean (write-back charged)");
  LockEntry said_clean = entry(128, 40);
  said_clean.timing = "cold-l2";
  EXPECT_FALSE(measured_otherwise(clean, said_clean).has_value());
}

TEST(Merge, TwoDefaultsForOneArchKeepBasesMark) {
  Lockfile a = lock_with("sm_90", "A", entry(512, 70));
  Lockfile b = lock_with("sm_90", "B", entry(256, 65));
  MergeResult m = merge(a, b);
  EXPECT_TRUE(m.merged.kernels["k"].targets["sm_90"]["A"].is_default);
  EXPECT_FALSE(m.merged.kernels["k"].targets["sm_90"]["B"].is_default);
  ASSERT_EQ(m.conflicts.size(), 1u);
  EXPECT_NE(m.conflicts[0].resolution.find("default mark dropped"), std::string::npos);
}

TEST(Merge, DifferentSourcesKeepOneSideWhole) {
  Lockfile old_src = lock_with("sm_90", "NVIDIA H200", entry(512, 70), kHashA);
  set_entry(old_src, "k", "src/k.cu", kHashA, "sm_80", "NVIDIA A100", entry(128, 95));
  Lockfile new_src = lock_with("sm_90", "NVIDIA H200", entry(256, 80), kHashB);

  // Current source unknown: the incoming (newer) file wins, whole.
  MergeResult m = merge(old_src, new_src);
  EXPECT_EQ(m.merged.kernels["k"], new_src.kernels["k"]);
  ASSERT_EQ(m.conflicts.size(), 1u);
  EXPECT_EQ(m.conflicts[0].arch, "");
  EXPECT_NE(m.conflicts[0].resolution.find("dropped 2 entries measured on sha256:aaaaaaaaaaaa"),
            std::string::npos)
      << m.conflicts[0].resolution;

  // The side matching the current source wins, whichever order.
  MergeOptions options;
  options.current_source_hash = [](const std::string& source) -> std::optional<std::string> {
    if (source == "src/k.cu") return kHashA;
    return std::nullopt;
  };
  MergeResult keep_old = merge(old_src, new_src, options);
  EXPECT_EQ(keep_old.merged.kernels["k"], old_src.kernels["k"]);
  EXPECT_NE(keep_old.conflicts[0].resolution.find("matches the current source"), std::string::npos);
  MergeResult keep_old2 = merge(new_src, old_src, options);
  EXPECT_EQ(keep_old2.merged.kernels["k"], old_src.kernels["k"]);
}

TEST(Stale, ComparesTheSourceHash) {
  Lockfile lock = lock_with("sm_90", "NVIDIA H200", entry(512, 70));
  EXPECT_FALSE(is_stale(lock.kernels["k"], kHashA));
  EXPECT_TRUE(is_stale(lock.kernels["k"], kHashB));
}

TEST(LockEntryTest, Speedup) {
  LockEntry e = entry(512, 50);
  EXPECT_DOUBLE_EQ(*e.speedup(), 2.0);
  e.baseline_us.reset();
  EXPECT_FALSE(e.speedup());
}

}  // namespace
}  // namespace kev
