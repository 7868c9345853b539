#pragma once
// Small formatting helpers shared by the report writers: core/ratio_text.h's and
// core/time_text.h's words, "-" where a value is absent.
#include <optional>
#include <string>

#include "core/report.h"

namespace kev::io {

[[nodiscard]] std::string fmt_us(const std::optional<double>& us);      // "70.1 us" or "-"
[[nodiscard]] std::string fmt_ratio_change(const KernelReport& k);      // "+12.3%" or "-"
[[nodiscard]] std::string fmt_ci(const KernelReport& k);                // "0.98..1.02" or "-"
[[nodiscard]] std::string fmt_speedup(const std::optional<double>& s);  // "2.04x" or "-"
[[nodiscard]] std::string fmt_p(const std::optional<double>& p);        // "0.012" or "-"
// The ratio's 95% interval as one of the speedup: "1.95x..2.10x" or "-".
[[nodiscard]] std::string fmt_speedup_ci(const KernelReport& k);
// What a row without a baseline measurement says where a change would be.
inline constexpr const char* kNoBaseline = "no baseline";
// tune: "143 us → 70.1 us", "no baseline → 70.1 us" or "-".
[[nodiscard]] std::string old_to_new_time(const KernelReport& k);
// tune and compare: "SOFTMAX_BLOCK=256 → SOFTMAX_BLOCK=512" where they differ (an empty
// side is the source defaults), else the parameters; check: the parameters.
[[nodiscard]] std::string params_cell(const Report& r, const KernelReport& k);
[[nodiscard]] std::string fmt_percent(const std::optional<double>& fraction);  // "83%" or "-"
// tune: a row has times but no interval (times as a lockfile records them).
[[nodiscard]] bool recorded_times_only(const Report& r);
inline constexpr const char* kRecordedTimesNote =
    "Times without a 95% CI are as the lockfile records them (one median each); a tune run's "
    "own report has the interval where it measured both sides.";
[[nodiscard]] std::string location(const KernelReport& k);  // "src/a.cu:12"
[[nodiscard]] std::string title_line(
    const Report& r);  // "kernelevo check on NVIDIA H200 (sm_90): 1 SLOWER, 2 PASS"

}  // namespace kev::io
