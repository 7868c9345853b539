#include "core/lock_report.h"

#include <cstdlib>

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

Report report_from_lockfile(const Lockfile& lock, const LockReportFilter& filter) {
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
        // A row per bucket of an entry with buckets, else one.
        std::vector<LockBucket> slots = entry.buckets;
        if (slots.empty()) slots.push_back({{}, entry.params, entry.time_us, entry.baseline_us});
        for (const LockBucket& slot : slots) {
          KernelReport k;
          k.id = id;
          if (entry.has_buckets()) k.bucket = bucket_label(entry.by, slot.range);
          k.source = kernel.source;
          k.arch = arch;
          k.device = device;
          k.params = slot.params;
          k.baseline_us = slot.baseline_us;
          k.time_us = slot.time_us;
          if (slot.time_us && slot.baseline_us && *slot.time_us > 0)
            k.speedup = *slot.baseline_us / *slot.time_us;
          if (slot.time_us && slot.baseline_us && *slot.baseline_us > 0)
            k.ratio = *slot.time_us / *slot.baseline_us;
          const auto tuned = parse_tuned_with(entry.tuned_with);
          k.strategy = tuned.strategy;
          k.evaluations = tuned.evaluations;
          k.verdict = k.speedup && *k.speedup >= 1.02 ? KernelVerdict::faster : KernelVerdict::same;
          k.evidence = k.speedup ? "locked winner against the source defaults"
                                 : "locked winner (no baseline time)";
          if (!entry.tuned_with.empty()) k.evidence += "; tuned with " + entry.tuned_with;
          r.kernels.push_back(std::move(k));
        }
      }
    }
  }
  return r;
}

}  // namespace kev
