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
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f..%.3f", *k.ratio_ci_low, *k.ratio_ci_high);
  return buf;
}

std::string fmt_speedup(const std::optional<double>& s) {
  if (!s) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", *s);
  return buf;
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

std::string title_line(const Report& r) {
  std::string gpu =
      r.device.empty() ? r.arch : r.device + (r.arch.empty() ? "" : " (" + r.arch + ")");
  std::string title = std::string("kernelevo ") + to_string(r.kind);
  if (r.kind == ReportKind::compare && !r.base_ref.empty()) title += " against " + r.base_ref;
  if (!gpu.empty()) title += " on " + gpu;
  return title + ": " + summary_line(r);
}

}  // namespace kev::io
