#include "core/compare_gate.h"

#include <cstdio>
#include <optional>
#include <set>

#include "core/gate_rounds.h"
#include "core/ratio_text.h"
#include "core/time_text.h"

namespace kev {

namespace {

struct SideKernel {
  const KernelSpec* spec = nullptr;
  ParamSet params;
  std::string source;
  std::string why;  // which lockfile entry (or the source defaults)
  bool present = false;
  const LockEntry* entry = nullptr;
};

SideKernel side_kernel(const CompareSide& side, const std::string& id, const GpuIdentity& gpu) {
  SideKernel k;
  for (const auto* s : side.specs)
    if (s != nullptr && s->id == id) k.spec = s;
  if (k.spec != nullptr) {
    k.present = true;
    k.source = k.spec->source;
  }
  if (side.lock != nullptr) {
    const auto locked = side.lock->kernels.find(id);
    if (locked != side.lock->kernels.end()) {
      if (side.specs.empty()) k.present = true;  // replay without specs: the lockfile decides
      if (k.source.empty()) k.source = locked->second.source;
    }
    const auto choice = lookup(*side.lock, id, lock_arch(k.spec, gpu.arch), gpu.device);
    if (choice.entry != nullptr) {
      k.params = choice.entry->params;
      k.why = choice.arch + " / " + choice.device;
      k.entry = choice.entry;
    }
  }
  if (k.why.empty()) k.why = "source defaults";
  return k;
}

std::set<std::string> kernel_ids(const CompareSide& side) {
  std::set<std::string> ids;
  for (const auto* s : side.specs)
    if (s != nullptr) ids.insert(s->id);
  if (side.specs.empty() && side.lock != nullptr)
    for (const auto& [id, locked] : side.lock->kernels) ids.insert(id);
  return ids;
}

std::string failure_text(const Measurement& m) {
  return std::string(to_string(m.disposition)) + (m.detail.empty() ? "" : ": " + m.detail);
}

KernelVerdict from_stats(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::same:
      return KernelVerdict::same;
    case stats::Verdict::slower:
      return KernelVerdict::slower;
    case stats::Verdict::faster:
      return KernelVerdict::faster;
    case stats::Verdict::unsure:
      return KernelVerdict::unsure;
  }
  return KernelVerdict::unsure;
}

void compare_kernel(const CompareInput& in, const std::string& id, const SideKernel& base,
                    const SideKernel& head, Measurer& measurer, KernelReport& k) {
  k.params = head.params;
  k.base_params = base.params;
  if (!base.present || !head.present) {
    k.verdict = KernelVerdict::missing;
    k.evidence = base.present
                     ? "marked in " + in.base_ref + " but not in the head"
                     : "new in the head (not in " + in.base_ref + "): nothing to compare with";
    return;
  }
  auto compiled = [](const CompareSide& side, const KernelSpec* spec) -> const CompiledSource* {
    if (spec == nullptr) return nullptr;
    auto it = side.compiled.find(spec->source);
    return it == side.compiled.end() ? nullptr : &it->second;
  };
  // Both sides timed one way and compiled by one compiler: as the head's winner was tuned.
  const bool dirty = head.entry != nullptr && timed_dirty(*head.entry);
  const DeviceCodeCompiler code =
      head.entry != nullptr ? device_code_of(*head.entry) : DeviceCodeCompiler::nvcc;
  MeasureTarget base_target{
      id, base.spec, in.base.root, "base", base.params, compiled(in.base, base.spec), dirty, code};
  MeasureTarget head_target{
      id, head.spec, in.head.root, "head", head.params, compiled(in.head, head.spec), dirty, code};
  base_target.charge_writeback = head_target.charge_writeback =
      head.entry != nullptr && timed_with_writeback(*head.entry);
  RoundSamples a;
  RoundSamples b;
  for (int r = 0; r < in.options.rounds && !a.failure && !b.failure; ++r) {
    measure_round(measurer, base_target, a);
    measure_round(measurer, head_target, b);
  }
  k.samples = static_cast<int>(std::min(a.medians_us.size(), b.medians_us.size()));
  if (b.failure) {
    k.verdict = KernelVerdict::failed;
    k.evidence = "the head's kernel is " + failure_text(*b.failure);
    return;
  }
  if (a.failure) {
    k.verdict = KernelVerdict::unsure;
    k.evidence = "the base's kernel is " + failure_text(*a.failure) + "; nothing to compare with";
    return;
  }
  const auto c = stats::compare(a.medians_us, b.medians_us, in.options.stats);
  k.verdict = from_stats(c.verdict);
  k.baseline_us = c.base_median_us;
  k.time_us = c.head_median_us;
  k.ratio = c.ratio;
  k.ratio_ci_low = c.ratio_ci.low;
  k.ratio_ci_high = c.ratio_ci.high;
  k.p_value = c.p_value;
  if (!b.roofline_fractions.empty()) k.roofline_fraction = stats::median(b.roofline_fractions);
  k.evidence = format_time_us(c.head_median_us, TimeDigits::compact) + " against " +
               format_time_us(c.base_median_us, TimeDigits::compact) + " (" +
               percent_change(c.ratio) + ", 95% CI of the ratio " +
               ratio_interval_text(c.ratio_ci.low, c.ratio_ci.high) +
               ", Mann-Whitney p=" + p_value_text(c.p_value) + ", " + std::to_string(k.samples) +
               " rounds each): " + c.reason;
  if (base.params != head.params)
    k.evidence += "; parameters changed from " + params_text(base.params) + " (" + base.why + ")";
}

}  // namespace

Report run_compare(const CompareInput& in, Measurer& measurer) {
  Report report;
  report.kind = ReportKind::compare;
  report.arch = in.gpu.arch;
  report.device = in.gpu.device;
  report.base_ref = in.base_ref;
  report.threshold = in.options.stats.min_rel_change;
  report.min_abs_us = in.options.stats.min_abs_us;
  report.rounds = in.options.rounds;
  report.created = utc_timestamp();

  auto ids = kernel_ids(in.head);
  for (const auto& id : kernel_ids(in.base)) ids.insert(id);
  for (const auto& id : ids) {
    const SideKernel base = side_kernel(in.base, id, in.gpu);
    const SideKernel head = side_kernel(in.head, id, in.gpu);
    KernelReport k;
    k.id = id;
    k.arch = in.gpu.arch;
    k.device = in.gpu.device;
    k.source = head.present ? head.source : base.source;
    if (head.spec != nullptr) k.line = head.spec->where.line;
    // With buckets (the head's lockfile entry, else the head spec's dispatch): a row per
    // bucket, each side building the params its lockfile gives a problem of the bucket.
    std::string by;
    std::vector<BucketRange> ranges;
    if (head.entry != nullptr && head.entry->has_buckets()) {
      by = head.entry->by;
      for (const auto& b : head.entry->buckets) ranges.push_back(b.range);
    } else if (head.spec != nullptr && head.spec->dispatch) {
      by = head.spec->dispatch->by;
      ranges = head.spec->dispatch->buckets;
    }
    if (ranges.empty()) {
      compare_kernel(in, id, base, head, measurer, k);
      report.kernels.push_back(std::move(k));
      continue;
    }
    for (const BucketRange& range : ranges) {
      KernelReport row = k;
      row.bucket = bucket_label(by, range);
      SideKernel b = base;
      SideKernel h = head;
      std::optional<KernelSpec> base_spec;
      std::optional<KernelSpec> head_spec;
      const auto restrict = [&](SideKernel& side, std::optional<KernelSpec>& storage) {
        const LockBucket* serving = side.entry ? side.entry->bucket_for(range.lo) : nullptr;
        if (side.entry != nullptr) side.params = side.entry->params_for(range.lo);
        if (side.spec == nullptr) return;
        storage = spec_for_bucket(*side.spec, by, range, serving == nullptr || serving->sized);
        side.spec = &*storage;
      };
      restrict(b, base_spec);
      restrict(h, head_spec);
      compare_kernel(in, id, b, h, measurer, row);
      report.kernels.push_back(std::move(row));
    }
  }
  return report;
}

}  // namespace kev
