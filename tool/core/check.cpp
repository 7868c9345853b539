#include "core/check.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/gate_rounds.h"
#include "core/ratio_text.h"
#include "core/time_text.h"

namespace kev {

namespace {

const KernelSpec* find_spec(const std::vector<const KernelSpec*>& specs, const std::string& id) {
  for (const auto* s : specs)
    if (s != nullptr && s->id == id) return s;
  return nullptr;
}

KernelReport skeleton(const std::string& id, const LockedKernel* locked, const KernelSpec* spec,
                      const GpuIdentity& gpu) {
  KernelReport k;
  k.id = id;
  k.source = spec != nullptr ? spec->source : (locked != nullptr ? locked->source : "");
  k.line = spec != nullptr ? spec->where.line : 0;
  k.arch = lock_arch(spec, gpu.arch);
  k.device = gpu.device;
  return k;
}

// One locked winner: an entry, or one bucket of an entry with buckets (`spec` then the
// bucket's problems only).
void check_entry(const CheckInput& in, const std::string& id, const LockedKernel& locked,
                 const LockEntry& entry, const KernelSpec* spec, Measurer& measurer,
                 KernelReport& k) {
  k.params = entry.params;
  k.baseline_us = entry.time_us;
  k.speedup = entry.speedup();
  if (spec != nullptr) {
    auto allowed = check_params(entry.params, *spec,
                                "lockfile: " + id + " " + in.gpu.arch + " " + in.gpu.device);
    if (!allowed) {
      k.verdict = KernelVerdict::failed;
      k.evidence = "locked parameters are not allowed by the spec: " + allowed.error().message;
      return;
    }
    // A complete entry (what tune writes) is checked against the constraints here; one that
    // leaves parameters to the source defaults is checked where they are known, at build.
    if (allowed->missing.empty())
      if (auto held = check_constraints(
              entry.params, *spec, "lockfile: " + id + " " + in.gpu.arch + " " + in.gpu.device);
          !held) {
        k.verdict = KernelVerdict::failed;
        k.evidence = "locked parameters are not allowed by the spec: " + held.error().message;
        return;
      }
  }
  std::optional<std::string> current_hash;
  if (in.source_hash) current_hash = in.source_hash(locked.source);
  const bool stale = current_hash && is_stale(locked, *current_hash);

  MeasureTarget target{id, spec, in.root, "head", entry.params, nullptr};
  target.dirty_l2 = timed_dirty(entry);
  target.charge_writeback = timed_with_writeback(entry);
  target.device_code = device_code_of(entry);
  if (spec != nullptr)
    if (auto it = in.compiled.find(spec->source); it != in.compiled.end())
      target.compiled = &it->second;
  RoundSamples rounds;
  for (int r = 0; r < in.options.rounds && !rounds.failure; ++r)
    measure_round(measurer, target, rounds);
  k.samples = static_cast<int>(rounds.medians_us.size());
  if (rounds.failure) {
    k.verdict = KernelVerdict::failed;
    k.evidence = std::string("the locked winner is now ") + to_string(rounds.failure->disposition) +
                 (rounds.failure->detail.empty() ? "" : ": " + rounds.failure->detail);
    if (target.compiled != nullptr) k.evidence += " (measured " + target.compiled->label + ")";
    return;
  }
  if (!rounds.roofline_fractions.empty())
    k.roofline_fraction = stats::median(rounds.roofline_fractions);
  k.time_us = stats::median(rounds.medians_us);
  if (!entry.time_us || *entry.time_us <= 0.0) {
    k.verdict = stale ? KernelVerdict::stale : KernelVerdict::pass;
    k.evidence = "compiles and verifies; no recorded time to compare with";
  } else {
    const auto j = judge_against_recorded(rounds.medians_us, *entry.time_us, in.options);
    k.verdict = j.verdict;
    k.ratio = j.ratio;
    k.ratio_ci_low = j.ratio_ci.low;
    k.ratio_ci_high = j.ratio_ci.high;
    k.p_value = j.p_value;
    k.evidence = j.evidence;
    // Not a pass: the verdict stands, but a slowdown may be the flush's, not the code's.
    if ((j.verdict == KernelVerdict::slower || j.verdict == KernelVerdict::unsure) &&
        entry.flush != kFlushRevision)
      k.evidence += "; the recorded time was taken after the L2 flush of " +
                    flush_text(entry.flush) + " and this kernelevo flushes as revision " +
                    std::to_string(kFlushRevision) +
                    ": if nothing else changed, re-tune (docs/lockfile.md)";
  }
  if (target.compiled != nullptr) k.evidence += " (measured " + target.compiled->label + ")";
  if (stale && !is_failure(k.verdict)) {
    k.verdict = KernelVerdict::stale;
    k.evidence =
        "the source changed since this entry was tuned (re-run kernelevo tune); " + k.evidence;
  } else if (stale) {
    k.evidence += " (the source changed since this entry was tuned)";
  }
}

}  // namespace

double sign_test_p(std::size_t k, std::size_t n) {
  if (k == 0) return 1.0;
  // sum_{i=k}^{n} C(n, i) / 2^n, in logs to stay finite for large n
  double p = 0.0;
  for (std::size_t i = k; i <= n; ++i) {
    const double log_c = std::lgamma(static_cast<double>(n) + 1) -
                         std::lgamma(static_cast<double>(i) + 1) -
                         std::lgamma(static_cast<double>(n - i) + 1);
    p += std::exp(log_c - static_cast<double>(n) * std::log(2.0));
  }
  return std::min(1.0, p);
}

RecordedJudgement judge_against_recorded(const std::vector<double>& medians, double recorded_us,
                                         const CheckOptions& options) {
  RecordedJudgement j;
  j.median_us = stats::median(medians);
  j.ratio = j.median_us / recorded_us;
  const auto ci = stats::bootstrap_median_ci(medians, options.bootstrap);
  j.ratio_ci = {ci.low / recorded_us, ci.high / recorded_us};
  j.threshold = std::max(options.threshold, options.min_abs_us / recorded_us);
  const double slow_line = recorded_us * (1.0 + j.threshold);
  const double fast_line = recorded_us * (1.0 - j.threshold);
  const auto above = static_cast<std::size_t>(
      std::count_if(medians.begin(), medians.end(), [&](double x) { return x > slow_line; }));
  const auto below = static_cast<std::size_t>(
      std::count_if(medians.begin(), medians.end(), [&](double x) { return x < fast_line; }));
  const double p_slow = sign_test_p(above, medians.size());
  const double p_fast = sign_test_p(below, medians.size());
  const std::string numbers = format_time_us(j.median_us, TimeDigits::compact) + " against " +
                              format_time_us(recorded_us, TimeDigits::compact) + " recorded (" +
                              percent_change(j.ratio) + ", 95% CI of the ratio " +
                              ratio_interval_text(j.ratio_ci.low, j.ratio_ci.high) + ", " +
                              std::to_string(medians.size()) + " rounds";
  const std::string allowed = "allowed " + percent_change(1.0 + j.threshold);
  if (j.ratio_ci.low > 1.0 + j.threshold && p_slow < options.alpha) {
    j.verdict = KernelVerdict::slower;
    j.p_value = p_slow;
    j.evidence = numbers + ", sign test p=" + p_value_text(p_slow) + "): slower than " + allowed;
  } else if (j.ratio_ci.high < 1.0 - j.threshold && p_fast < options.alpha) {
    j.verdict = KernelVerdict::faster;
    j.p_value = p_fast;
    j.evidence = numbers + ", sign test p=" + p_value_text(p_fast) + "): faster than recorded";
  } else if (j.ratio <= 1.0 + j.threshold) {
    j.verdict = KernelVerdict::pass;
    j.p_value = p_slow;
    j.evidence = numbers + "): within " + allowed;
  } else {
    j.verdict = KernelVerdict::unsure;
    j.p_value = p_slow;
    j.evidence = numbers + ", sign test p=" + p_value_text(p_slow) +
                 "): above the allowed change but not confidently; re-run with more --rounds";
  }
  return j;
}

Report run_check(const CheckInput& in, Measurer& measurer) {
  Report report;
  report.kind = ReportKind::check;
  report.arch = in.gpu.arch;
  report.device = in.gpu.device;
  report.threshold = in.options.threshold;
  report.min_abs_us = in.options.min_abs_us;
  report.rounds = in.options.rounds;
  report.created = utc_timestamp();

  std::set<std::string> seen;
  if (in.lock != nullptr) {
    for (const auto& [id, locked] : in.lock->kernels) {
      const KernelSpec* spec = find_spec(in.specs, id);
      if (!in.specs.empty() && spec == nullptr) continue;  // no longer marked: nothing to check
      const auto arch = locked.targets.find(lock_arch(spec, in.gpu.arch));
      if (arch == locked.targets.end()) continue;
      const auto entry = arch->second.find(in.gpu.device);
      if (entry == arch->second.end()) continue;
      seen.insert(id);
      if (!entry->second.has_buckets()) {
        KernelReport k = skeleton(id, &locked, spec, in.gpu);
        check_entry(in, id, locked, entry->second, spec, measurer, k);
        report.kernels.push_back(std::move(k));
        continue;
      }
      // A row per bucket: its winner measured on the spec's problems inside the bucket.
      for (const LockBucket& b : entry->second.buckets) {
        KernelReport k = skeleton(id, &locked, spec, in.gpu);
        k.bucket = bucket_label(entry->second.by, b.range);
        const LockEntry one = entry->second.bucket_winner(b);
        std::optional<KernelSpec> bucket_spec;
        if (spec != nullptr) {
          bucket_spec = spec_for_bucket(*spec, entry->second.by, b.range, b.sized);
          if (bucket_spec->problems.empty()) {
            k.verdict = KernelVerdict::stale;
            k.params = b.params;
            k.evidence =
                "no problem of the spec lies in this bucket any more (re-run kernelevo "
                "tune)";
            report.kernels.push_back(std::move(k));
            continue;
          }
        }
        check_entry(in, id, locked, one, bucket_spec ? &*bucket_spec : nullptr, measurer, k);
        report.kernels.push_back(std::move(k));
      }
    }
  }
  for (const auto* spec : in.specs) {
    if (spec == nullptr || seen.count(spec->id) != 0) continue;
    KernelReport k = skeleton(spec->id, nullptr, spec, in.gpu);
    k.verdict = KernelVerdict::missing;
    const std::string arch = lock_arch(spec, in.gpu.arch);
    std::string why = "no locked entry for " + arch + " / " + in.gpu.device;
    if (in.lock != nullptr) {
      const auto choice = lookup(*in.lock, spec->id, arch, in.gpu.device);
      if (choice.entry != nullptr)
        why += "; builds use the " + choice.arch + " / " + choice.device + " entry (" + choice.why +
               ")";
    }
    k.evidence = why + "; run kernelevo tune on this GPU";
    report.kernels.push_back(std::move(k));
  }
  std::stable_sort(report.kernels.begin(), report.kernels.end(),
                   [](const KernelReport& a, const KernelReport& b) { return a.id < b.id; });
  return report;
}

}  // namespace kev
