#pragma once
// A tune report from a lockfile: one row per locked entry (kernel, architecture, device)
// with its time, the source defaults' time and the speedup. This is what a tune pull
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

// Verdicts: FASTER when the winner beats the source defaults by at least 2%, SAME otherwise
// (the defaults are already as good as anything found).
[[nodiscard]] Report report_from_lockfile(const Lockfile& lock,
                                          const LockReportFilter& filter = {});

// Strategy and evaluation count parsed from `tuned_with` ("..., strategy auto, 96 evaluations").
struct TunedWith {
  std::string strategy;
  std::optional<int> evaluations;
};
[[nodiscard]] TunedWith parse_tuned_with(const std::string& text);

}  // namespace kev
