#pragma once
// A tune report from a lockfile: one row per locked entry (kernel, architecture, device)
// with the old -> new parameters and times and the speedup. This is what a tune pull
// request shows its reviewers.
#include <optional>
#include <span>
#include <string>

#include "core/lockfile.h"
#include "core/report.h"

namespace kev {

struct LockReportFilter {
  std::optional<std::string> arch;    // only this architecture
  std::optional<std::string> device;  // only this device
};

// What a tune run measured of a winner it locked, both sides in that run: the configuration a
// build used before (the replaced entry re-measured, else the source defaults) and the new
// winner, each a median with its 95% interval when the measurement gave one.
struct RunChange {
  std::string id;
  std::string bucket;  // bucket_label() of the bucket; empty for an entry without buckets
  std::string arch;    // as locked
  std::string device;
  Measured before;
  Measured after;
  bool intervals = false;            // both sides carry an interval of their median
  bool before_is_old_entry = false;  // false: the source defaults
};

// Each row compares the entry with what a build used before it: the entry for the same
// kernel, architecture and device in `base` (the lockfile the tune started from), else the
// source defaults (the entry's baseline_us). Verdicts: FASTER when the entry beats the old
// configuration by at least 2%, SAME when within 2% either way, UNSURE ("no baseline") when
// either time is missing, or when the recorded old time is the faster one (times recorded
// by different runs; the tune replaced it only after measuring both in one run).
// A row that `changes` names (the run that wrote the lockfile) is judged on that run's own
// two measurements instead, with the speedup's 95% interval (stats::ratio_interval_of_medians);
// rows from recorded times alone have no interval.
[[nodiscard]] Report report_from_lockfile(const Lockfile& lock, const LockReportFilter& filter = {},
                                          const Lockfile* base = nullptr,
                                          std::span<const RunChange> changes = {});

// Strategy and evaluation count parsed from `tuned_with` ("..., strategy auto, 96 evaluations").
struct TunedWith {
  std::string strategy;
  std::optional<int> evaluations;
};
[[nodiscard]] TunedWith parse_tuned_with(const std::string& text);

}  // namespace kev
