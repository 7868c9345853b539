#pragma once
// Ratios for people: the one way every report (tables, evidence lines, the tune table, the
// gate's statistics) writes a change, a speedup, a confidence interval of a ratio, a p-value
// and a commit, so a table cell and the evidence beside it always read the same. Times are
// core/time_text.h's (TimeDigits::compact in reports).
#include <cstddef>
#include <string>
#include <string_view>

namespace kev {

// Percent change of a ratio: "+12.3%", "-4.0%", "+0.0%" (never "-0.0%").
[[nodiscard]] std::string percent_change(double ratio);
// "2.04x".
[[nodiscard]] std::string speedup_text(double speedup);
// A 95% interval of a ratio: "0.770..0.790".
[[nodiscard]] std::string ratio_interval_text(double low, double high);
// The speedup interval of a time ratio's interval (old / new from new / old): "1.05x..1.10x".
[[nodiscard]] std::string speedup_interval_text(double ratio_low, double ratio_high);
// "0.631", "0.012", below 0.001 "9.8e-04".
[[nodiscard]] std::string p_value_text(double p);

// Commit hashes are shown with this many hex digits.
inline constexpr std::size_t kShortCommitDigits = 12;
// A revision as people read it: a full commit hash (40 or 64 hex digits) cut to
// kShortCommitDigits; anything else (a branch, "HEAD~1", a short hash) unchanged.
[[nodiscard]] std::string short_revision(std::string_view revision);

}  // namespace kev
