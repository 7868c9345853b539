#pragma once
// A tune report from a lockfile: one row per locked entry (kernel, architecture, device)
// with the old -> new parameters and times and the speedup. This is what a tune pull
// request shows its reviewers.
#include <optional>
#include <string>

#include "core/lockfile.h"
#include "core/report.h"

namespace kev {

struct LockReportFilter {
  std::optional<std::string> arch;    // only this architecture
  std::optional<std::string> device;  // only this device
};

// Each row compares the entry with what a build used before it: the entry for the same
// kernel, architecture and device in `base` (the lockfile the tune started from), else the
// source defaults (the entry's baseline_us). Verdicts: FASTER when the entry beats the old
// configuration by at least 2%, SAME when within 2% either way, UNSURE ("no baseline") when
// either time is missing, or when the recorded old time is the faster one (times recorded
// by different runs; the tune replaced it only after measuring both in one run).
[[nodiscard]] Report report_from_lockfile(const Lockfile& lock, const LockReportFilter& filter = {},
                                          const Lockfile* base = nullptr);

// Strategy and evaluation count parsed from `tuned_with` ("..., strategy auto, 96 evaluations").
struct TunedWith {
  std::string strategy;
  std::optional<int> evaluations;
};
[[nodiscard]] TunedWith parse_tuned_with(const std::string& text);

}  // namespace kev
