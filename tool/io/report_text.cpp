#include "io/report_text.h"

#include <cstdio>

#include "core/gate_rounds.h"
#include "core/time_text.h"

namespace kev::io {

std::string fmt_us(const std::optional<double>& us) {
  return us ? format_time_us(*us, TimeDigits::compact) : "-";
}

std::string fmt_ratio_change(const KernelReport& k) {
  return k.ratio ? percent_change(*k.ratio) : "-";
}

std::string fmt_ci(const KernelReport& k) {
  if (!k.ratio_ci_low || !k.ratio_ci_high) return "-";
  return ratio_interval_text(*k.ratio_ci_low, *k.ratio_ci_high);
}

std::string fmt_speedup(const std::optional<double>& s) { return s ? speedup_text(*s) : "-"; }

std::string fmt_p(const std::optional<double>& p) { return p ? p_value_text(*p) : "-"; }

std::string fmt_speedup_ci(const KernelReport& k) {
  if (!k.ratio_ci_low || !k.ratio_ci_high || *k.ratio_ci_low <= 0.0) return "-";
  return speedup_interval_text(*k.ratio_ci_low, *k.ratio_ci_high);
}

std::string old_to_new_time(const KernelReport& k) {
  if (!k.time_us) return "-";
  return (k.baseline_us ? fmt_us(k.baseline_us) : std::string(kNoBaseline)) + " → " +
         fmt_us(k.time_us);
}

std::string params_cell(const Report& r, const KernelReport& k) {
  if (r.kind == ReportKind::check || k.base_params == k.params) return params_text(k.params);
  return params_text(k.base_params) + " → " + params_text(k.params);
}

std::string fmt_percent(const std::optional<double>& fraction) {
  if (!fraction) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", *fraction * 100.0);
  return buf;
}

std::string location(const KernelReport& k) {
  if (k.source.empty()) return "";
  return k.line > 0 ? k.source + ":" + std::to_string(k.line) : k.source;
}

bool recorded_times_only(const Report& r) {
  if (r.kind != ReportKind::tune) return false;
  for (const auto& k : r.kernels)
    if (k.baseline_us && k.time_us && !k.ratio_ci_low) return true;
  return false;
}

std::string title_line(const Report& r) {
  std::string gpu =
      r.device.empty() ? r.arch : r.device + (r.arch.empty() ? "" : " (" + r.arch + ")");
  std::string title = std::string("kernelevo ") + to_string(r.kind);
  if (r.kind == ReportKind::compare && !r.base_ref.empty())
    title += " against " + short_revision(r.base_ref);
  if (!gpu.empty()) title += " on " + gpu;
  return title + ": " + summary_line(r);
}

}  // namespace kev::io
