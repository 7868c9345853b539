#pragma once
// Small formatting helpers shared by the report writers.
#include <optional>
#include <string>

#include "core/report.h"

namespace kev::io {

[[nodiscard]] std::string fmt_us(const std::optional<double>& us);      // "70.1 us" or "-"
[[nodiscard]] std::string fmt_ratio_change(const KernelReport& k);      // "+12.3%" or "-"
[[nodiscard]] std::string fmt_ci(const KernelReport& k);                // "0.98..1.02" or "-"
[[nodiscard]] std::string fmt_speedup(const std::optional<double>& s);  // "2.04x" or "-"
[[nodiscard]] std::string fmt_percent(const std::optional<double>& fraction);  // "83%" or "-"
[[nodiscard]] std::string location(const KernelReport& k);                     // "src/a.cu:12"
[[nodiscard]] std::string title_line(
    const Report& r);  // "kernelevo check on NVIDIA H200 (sm_90): 1 SLOWER, 2 PASS"

}  // namespace kev::io
