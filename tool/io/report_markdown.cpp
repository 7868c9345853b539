#include "io/report_markdown.h"

#include <cstdio>
#include <sstream>

#include "io/markdown_text.h"
#include "io/report_text.h"

namespace kev::io {

namespace {

// Ids in table cells as code, with '|' escaped for the table.
std::string code_cell(const std::string& text) { return markdown_code(text, /*in_table=*/true); }

std::string verdict_cell(KernelVerdict v) {
  const std::string name = to_string(v);
  return is_failure(v) ? "**" + name + "**" : name;
}

std::string settings(const Report& r) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : " · ") + part; };
  char buf[64];
  if (r.threshold) {
    std::snprintf(buf, sizeof buf, "%s %.1f%%",
                  r.kind == ReportKind::compare ? "minimum change" : "threshold",
                  *r.threshold * 100.0);
    add(buf);
  }
  if (r.min_abs_us) {
    std::snprintf(buf, sizeof buf, "minimum absolute change %.1f us", *r.min_abs_us);
    add(buf);
  }
  if (r.rounds) add(std::to_string(*r.rounds) + " rounds");
  if (!r.mode.empty()) add(r.mode == "replay" ? "replayed measurements" : "measured on the GPU");
  if (!r.created.empty()) add(r.created);
  if (!r.tool.empty()) add(r.tool);
  return s;
}

// The first cells of every row: which kernel, on which architecture and device.
std::string row_start(const KernelReport& k) {
  return "| " + code_cell(kernel_label(k)) + " | " + markdown_text(k.arch) + " | " +
         markdown_text(k.device) + " | " + verdict_cell(k.verdict) + " | ";
}

constexpr const char* kHeadStart = "| Kernel | Arch | Device | Verdict |";
constexpr const char* kRuleStart = "|---|---|---|---|";

void table(std::ostringstream& out, const Report& r) {
  switch (r.kind) {
    case ReportKind::tune:
      out << kHeadStart
          << " Parameters (old → new) | Time (old → new) | Speedup | 95% CI of speedup | Roofline "
             "| Strategy |\n"
          << kRuleStart << "---|---:|---:|---:|---:|---|\n";
      for (const auto& k : r.kernels) {
        std::string strategy = k.strategy;
        if (k.evaluations)
          strategy +=
              (strategy.empty() ? "" : ", ") + std::to_string(*k.evaluations) + " evaluations";
        const bool baseline = k.baseline_us && k.time_us;
        out << row_start(k) << markdown_text(params_cell(r, k)) << " | " << old_to_new_time(k)
            << " | " << (baseline ? fmt_speedup(k.speedup) : kNoBaseline) << " | "
            << (baseline ? fmt_speedup_ci(k) : kNoBaseline) << " | "
            << fmt_percent(k.roofline_fraction) << " | " << markdown_text(strategy) << " |\n";
      }
      break;
    case ReportKind::check:
      out << kHeadStart << " Recorded | Measured | Change | 95% CI of ratio | Parameters |\n"
          << kRuleStart << "---:|---:|---:|---|---|\n";
      for (const auto& k : r.kernels)
        out << row_start(k) << fmt_us(k.baseline_us) << " | " << fmt_us(k.time_us) << " | "
            << fmt_ratio_change(k) << " | " << fmt_ci(k) << " | "
            << markdown_text(params_cell(r, k)) << " |\n";
      break;
    case ReportKind::compare:
      out << kHeadStart << " Base | Head | Change | 95% CI of ratio | p | Parameters |\n"
          << kRuleStart << "---:|---:|---:|---|---:|---|\n";
      for (const auto& k : r.kernels)
        out << row_start(k) << fmt_us(k.baseline_us) << " | " << fmt_us(k.time_us) << " | "
            << fmt_ratio_change(k) << " | " << fmt_ci(k) << " | " << fmt_p(k.p_value) << " | "
            << markdown_text(params_cell(r, k)) << " |\n";
      break;
  }
}

}  // namespace

std::string report_markdown(const Report& r) {
  std::ostringstream out;
  out << "## " << markdown_text(title_line(r)) << "\n\n";
  const std::string s = settings(r);
  if (!s.empty()) out << markdown_text(s) << "\n\n";
  if (r.kernels.empty()) {
    out << "No marked kernels with entries for this GPU.\n";
    return out.str();
  }
  table(out, r);
  out << "\n";
  if (recorded_times_only(r)) out << kRecordedTimesNote << "\n\n";
  const auto failures = count_failures(r);
  if (failures > 0)
    out << "**" << failures << (failures == 1 ? " kernel fails" : " kernels fail")
        << " the gate.**\n\n";
  out << "### Evidence\n\n";
  for (const auto& k : r.kernels) {
    out << "- " << markdown_code(kernel_label(k));
    if (!k.arch.empty() || !k.device.empty())
      out << " on "
          << markdown_text(k.arch + (k.arch.empty() || k.device.empty() ? "" : " ") + k.device);
    const std::string where = location(k);
    if (!where.empty()) out << " (" << markdown_code(where) << ")";
    out << " **" << to_string(k.verdict) << "**";
    if (!k.evidence.empty()) out << ": " << markdown_text(k.evidence);
    out << "\n";
  }
  return out.str();
}

}  // namespace kev::io
