#include "core/lock_report.h"

#include <cmath>
#include <cstdlib>

#include "core/stats.h"
#include "core/time_text.h"

namespace kev {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

TunedWith parse_tuned_with(const std::string& text) {
  TunedWith t;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string part = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (part.rfind("strategy ", 0) == 0) t.strategy = trim(part.substr(9));
    const auto space = part.find(' ');
    if (space != std::string::npos && (part.substr(space + 1) == "evaluations" ||
                                       part.substr(space + 1) == "evaluations per bucket")) {
      char* stop = nullptr;
      const long n = std::strtol(part.c_str(), &stop, 10);
      if (stop == part.c_str() + space && n >= 0 && n < 1000000000)
        t.evaluations = static_cast<int>(n);
    }
  }
  return t;
}

namespace {

const LockEntry* find_entry(const Lockfile* lock, const std::string& id, const std::string& arch,
                            const std::string& device) {
  if (lock == nullptr) return nullptr;
  const auto k = lock->kernels.find(id);
  if (k == lock->kernels.end()) return nullptr;
  const auto a = k->second.targets.find(arch);
  if (a == k->second.targets.end()) return nullptr;
  const auto d = a->second.find(device);
  return d == a->second.end() ? nullptr : &d->second;
}

constexpr double kMaterial = 1.02;  // a speedup under 2% is no change

// Verdict and evidence from the two times; `before` says what the old time is.
void judge_times(KernelReport& k, const std::string& before) {
  k.ratio = *k.time_us / *k.baseline_us;
  k.speedup = *k.baseline_us / *k.time_us;
  k.evidence = format_time_us(*k.baseline_us, TimeDigits::compact) + " → " +
               format_time_us(*k.time_us, TimeDigits::compact) + " (" + speedup_text(*k.speedup) +
               " over " + before;
  if (k.ratio_ci_low && k.ratio_ci_high)
    k.evidence += ", 95% CI " + speedup_interval_text(*k.ratio_ci_low, *k.ratio_ci_high);
  k.evidence += ")";
  if (*k.speedup >= kMaterial) {
    k.verdict = KernelVerdict::faster;
  } else if (*k.speedup > 1.0 / kMaterial) {
    k.verdict = KernelVerdict::same;
  } else {
    k.verdict = KernelVerdict::unsure;  // the caller says why the new one is slower
  }
}

void judge(KernelReport& k, const LockEntry& entry, const LockEntry* old) {
  // An old entry timed from another L2 state does not compare: the new entry's own
  // baseline, measured the same way in its run, stands in.
  // Nor does one whose code another compiler made.
  std::string timed_otherwise;
  if (const auto why = old != nullptr ? measured_otherwise(*old, entry) : std::nullopt) {
    switch (why->kind) {
      case MeasuredOtherwise::Kind::l2_state:
        timed_otherwise = "; the old entry was timed from a " + why->first +
                          " L2, this one from a " + why->second + " one";
        break;
      case MeasuredOtherwise::Kind::compiler:
        timed_otherwise = "; the old entry's code was compiled by " + why->first +
                          ", this one's by " + why->second;
        break;
      case MeasuredOtherwise::Kind::flush:
        timed_otherwise = "; the old entry was timed after the L2 flush of " + why->first +
                          ", this one after " + why->second;
        break;
    }
    old = nullptr;
  }
  const std::string before = old != nullptr ? "the old entry" : "the source defaults";
  k.baseline_us = old != nullptr ? old->time_us : entry.baseline_us;
  k.time_us = entry.time_us;
  if (!k.time_us || !k.baseline_us || *k.baseline_us <= 0.0 || *k.time_us <= 0.0) {
    k.verdict = KernelVerdict::unsure;
    k.evidence = !k.time_us ? "no baseline: the entry records no time"
                            : "no baseline: " + before + " recorded no time";
    return;
  }
  judge_times(k, before + (old != nullptr ? ", recorded" : ""));
  if (k.verdict == KernelVerdict::unsure && old != nullptr)
    k.evidence += ": slower than the old entry's recorded time, which another run measured";
  k.evidence += timed_otherwise;
}

// The row as the run that locked it measured both sides.
void judge_run(KernelReport& k, const RunChange& c) {
  k.baseline_us = c.before.median_us;
  k.time_us = c.after.median_us;
  if (c.intervals) {
    const auto ci = stats::ratio_interval_of_medians(
        c.before.median_us, {c.before.ci_low_us, c.before.ci_high_us}, c.after.median_us,
        {c.after.ci_low_us, c.after.ci_high_us});
    if (std::isfinite(ci.low) && std::isfinite(ci.high)) {
      k.ratio_ci_low = ci.low;
      k.ratio_ci_high = ci.high;
    }
  }
  const std::string before = c.before_is_old_entry ? "the old entry" : "the source defaults";
  judge_times(k, before + ", both measured in this run");
  if (k.verdict == KernelVerdict::unsure) k.evidence += ": slower than " + before;
}

const RunChange* find_change(std::span<const RunChange> changes, const KernelReport& k) {
  for (const RunChange& c : changes)
    if (c.id == k.id && c.bucket == k.bucket && c.arch == k.arch && c.device == k.device &&
        c.before.median_us > 0.0 && c.after.median_us > 0.0)
      return &c;
  return nullptr;
}

}  // namespace

Report report_from_lockfile(const Lockfile& lock, const LockReportFilter& filter,
                            const Lockfile* base, std::span<const RunChange> changes) {
  Report r;
  r.kind = ReportKind::tune;
  r.created = utc_timestamp();
  if (filter.arch) r.arch = *filter.arch;
  if (filter.device) r.device = *filter.device;
  for (const auto& [id, kernel] : lock.kernels) {
    for (const auto& [arch, devices] : kernel.targets) {
      if (filter.arch && *filter.arch != arch) continue;
      for (const auto& [device, entry] : devices) {
        if (filter.device && *filter.device != device) continue;
        // A row per bucket of an entry with buckets, else one. A bucket's old entry is the
        // base's bucket of the same range (an old entry without buckets was measured over
        // other problems: the bucket is judged against the source defaults then).
        const LockEntry* old = find_entry(base, id, arch, device);
        std::vector<LockBucket> slots = entry.buckets;
        if (slots.empty()) slots.push_back({{}, entry.params, entry.time_us, entry.baseline_us});
        for (const LockBucket& slot : slots) {
          const LockEntry one = entry.has_buckets() ? entry.bucket_winner(slot) : entry;
          std::optional<LockEntry> old_one;
          bool old_sized = true;
          if (old != nullptr && !entry.has_buckets() && !old->has_buckets()) old_one = *old;
          if (old != nullptr && entry.has_buckets())
            for (const LockBucket& b : old->buckets)
              if (b.range == slot.range) {
                old_one = old->bucket_winner(b);
                old_sized = b.sized;
              }
          KernelReport k;
          k.id = id;
          if (entry.has_buckets()) k.bucket = bucket_label(entry.by, slot.range);
          k.source = kernel.source;
          k.arch = arch;
          k.device = device;
          k.params = one.params;
          if (old_one) k.base_params = old_one->params;
          if (const RunChange* change = find_change(changes, k))
            judge_run(k, *change);
          else
            judge(k, one, old_one ? &*old_one : nullptr);
          if (old_one && old_one->params != one.params)
            k.evidence += "; parameters changed from " + params_text(old_one->params);
          // What a reviewer cannot see in the parameters: the build compiles this bucket's
          // winner without its size define (tune found it faster so).
          if (!slot.sized)
            k.evidence += std::string("; compiled without its size define") +
                          (old_one && old_sized ? " (was with it)" : "");
          else if (old_one && !old_sized)
            k.evidence += "; compiled with its size define (was without it)";
          const auto tuned = parse_tuned_with(entry.tuned_with);
          k.strategy = tuned.strategy;
          k.evaluations = tuned.evaluations;
          if (!entry.tuned_with.empty()) k.evidence += "; tuned with " + entry.tuned_with;
          r.kernels.push_back(std::move(k));
        }
      }
    }
  }
  return r;
}

}  // namespace kev
