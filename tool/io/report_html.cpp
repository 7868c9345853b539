#include "io/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "io/report_markdown.h"
#include "io/report_text.h"

namespace kev::io {

namespace {

constexpr const char* kPalette[] = {"#4063d8", "#389826", "#cb3c33",
                                    "#9558b2", "#d68910", "#17a2b8"};

std::string esc(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double x, int digits = 1) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

const char* verdict_color(KernelVerdict v) {
  switch (v) {
    case KernelVerdict::slower:
    case KernelVerdict::failed:
      return "#cb3c33";
    case KernelVerdict::faster:
    case KernelVerdict::pass:
      return "#389826";
    case KernelVerdict::stale:
    case KernelVerdict::missing:
    case KernelVerdict::unsure:
      return "#d68910";
    case KernelVerdict::same:
      return "#4063d8";
  }
  return "#777";
}

// The value a kernel's bar shows: speedup over the old configuration (tune) or over the
// recorded / base time (check, compare).
std::optional<double> speedup_of(const Report& r, const KernelReport& k) {
  if (r.kind == ReportKind::tune) return k.speedup;
  if (k.ratio && *k.ratio > 0) return 1.0 / *k.ratio;
  return std::nullopt;
}

// Horizontal bars with a reference line at `reference` (1x speedup, 100% of roofline).
void bar_chart(std::ostringstream& out, const std::string& title,
               const std::vector<std::pair<const KernelReport*, double>>& bars, double reference,
               bool percent) {
  const int label_w = 300;
  const int plot_w = 420;
  const int row_h = 36;
  const int height = 30 + row_h * static_cast<int>(bars.size()) + 24;
  double top = reference;
  for (const auto& b : bars) top = std::max(top, b.second);
  top *= 1.15;
  auto x_of = [&](double v) { return label_w + v / top * plot_w; };
  out << "<figure><figcaption>" << esc(title) << "</figcaption>\n<svg role=\"img\" width=\""
      << label_w + plot_w + 80 << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << label_w + plot_w + 80 << " " << height << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  int y = 20;
  for (const auto& [k, v] : bars) {
    // Two lines: the kernel, then where it ran (one kernel has a bar per architecture and device).
    out << "<text x=\"" << label_w - 8 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">"
        << esc(k->id) << "</text><text x=\"" << label_w - 8 << "\" y=\"" << y + 28
        << "\" text-anchor=\"end\" font-size=\"11\" fill=\"#555\">"
        << esc(k->arch + " · " + k->device) << "</text><rect x=\"" << label_w << "\" y=\"" << y + 5
        << "\" width=\"" << num(x_of(v) - label_w) << "\" height=\"" << row_h - 12 << "\" fill=\""
        << verdict_color(k->verdict) << "\"><title>"
        << esc(k->id + " " + k->arch + " " + k->device + " " + to_string(k->verdict))
        << "</title></rect><text x=\"" << num(x_of(v) + 5) << "\" y=\"" << y + 22 << "\">"
        << esc(percent ? fmt_percent(v) : speedup_text(v)) << "</text>\n";
    y += row_h;
  }
  const double rx = x_of(reference);
  out << "<line x1=\"" << num(rx) << "\" y1=\"14\" x2=\"" << num(rx) << "\" y2=\"" << y + 4
      << "\" stroke=\"#333\" stroke-dasharray=\"4 3\"/><text x=\"" << num(rx) << "\" y=\"" << y + 18
      << "\" text-anchor=\"middle\" font-size=\"11\">" << (percent ? "100%" : "1x") << "</text>\n";
  out << "</svg></figure>\n";
}

void convergence_chart(std::ostringstream& out, const std::vector<Convergence>& traces) {
  const int left = 70;
  const int w = 520;
  const int h = 260;
  std::size_t max_n = 1;
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0.0;
  for (const auto& t : traces) {
    max_n = std::max(max_n, t.best_us.size());
    for (double v : t.best_us)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  }
  if (!std::isfinite(lo)) return;
  if (hi <= lo) hi = lo * 1.1 + 1e-9;
  const double pad = (hi - lo) * 0.08;
  lo = std::max(0.0, lo - pad);
  hi += pad;
  auto x_of = [&](std::size_t i) {
    return left +
           static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(1, max_n - 1)) * w;
  };
  auto y_of = [&](double v) { return 20 + (hi - v) / (hi - lo) * h; };
  out << "<figure><figcaption>Best time so far against evaluations</figcaption>\n<svg role=\"img\" "
         "width=\""
      << left + w + 180 << "\" height=\"" << h + 70 << "\" viewBox=\"0 0 " << left + w + 180 << " "
      << h + 70 << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  out << "<line x1=\"" << left << "\" y1=\"" << 20 + h << "\" x2=\"" << left + w << "\" y2=\""
      << 20 + h << "\" stroke=\"#333\"/><line x1=\"" << left << "\" y1=\"20\" x2=\"" << left
      << "\" y2=\"" << 20 + h << "\" stroke=\"#333\"/>\n";
  for (int t = 0; t <= 4; ++t) {
    const double v = lo + (hi - lo) * t / 4.0;
    out << "<text x=\"" << left - 6 << "\" y=\"" << num(y_of(v) + 4)
        << "\" text-anchor=\"end\" font-size=\"11\">" << num(v, 1) << "</text>\n";
  }
  out << "<text x=\"" << left + w / 2 << "\" y=\"" << h + 55
      << "\" text-anchor=\"middle\">evaluations (1.." << max_n << ")</text><text x=\"14\" y=\""
      << 20 + h / 2 << "\" transform=\"rotate(-90 14 " << 20 + h / 2
      << ")\" text-anchor=\"middle\">best time (us)</text>\n";
  std::size_t series = 0;
  for (const auto& t : traces) {
    const char* color = kPalette[series % std::size(kPalette)];
    std::string path;
    for (std::size_t i = 0; i < t.best_us.size(); ++i) {
      if (!std::isfinite(t.best_us[i])) continue;
      path += (path.empty() ? "M" : " L") + num(x_of(i)) + " " + num(y_of(t.best_us[i]));
    }
    if (!path.empty())
      out << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << color
          << "\" stroke-width=\"2\"/>\n";
    out << "<text x=\"" << left + w + 10 << "\" y=\"" << 30 + 18 * series << "\" fill=\"" << color
        << "\">" << esc(t.kernel) << "</text>\n";
    ++series;
  }
  out << "</svg></figure>\n";
}

void table(std::ostringstream& out, const Report& r) {
  const bool tune = r.kind == ReportKind::tune;
  const bool compare = r.kind == ReportKind::compare;
  out << "<table><thead><tr><th>Kernel</th><th>Arch</th><th>Device</th><th>Verdict</th>";
  if (tune)
    out << "<th>Parameters (old → new)</th><th>Time (old → new)</th><th>Speedup</th><th>95% CI "
           "of speedup</th>";
  else
    out << "<th>" << (compare ? "Base" : "Recorded") << "</th><th>"
        << (compare ? "Head" : "Measured")
        << "</th><th>Change</th><th>95% CI of ratio</th><th>Parameters</th>";
  out << "<th>Roofline</th><th>Source</th><th>Evidence</th></tr></thead><tbody>\n";
  for (const auto& k : r.kernels) {
    out << "<tr><td><code>" << esc(kernel_label(k)) << "</code></td><td class=\"where\">"
        << esc(k.arch) << "</td><td class=\"where\">" << esc(k.device)
        << "</td><td style=\"color:" << verdict_color(k.verdict) << ";font-weight:bold\">"
        << to_string(k.verdict) << "</td>";
    if (tune) {
      const bool baseline = k.baseline_us && k.time_us;
      out << "<td>" << esc(params_cell(r, k)) << "</td><td class=\"num\">"
          << esc(old_to_new_time(k)) << "</td><td class=\"num\">"
          << esc(baseline ? fmt_speedup(k.speedup) : kNoBaseline) << "</td><td class=\"num\">"
          << esc(baseline ? fmt_speedup_ci(k) : kNoBaseline) << "</td>";
    } else {
      out << "<td class=\"num\">" << esc(fmt_us(k.baseline_us)) << "</td><td class=\"num\">"
          << esc(fmt_us(k.time_us)) << "</td><td class=\"num\">" << esc(fmt_ratio_change(k))
          << "</td><td class=\"num\">" << esc(fmt_ci(k)) << "</td><td>" << esc(params_cell(r, k))
          << "</td>";
    }
    out << "<td class=\"num\">" << esc(fmt_percent(k.roofline_fraction)) << "</td><td><code>"
        << esc(location(k)) << "</code></td><td class=\"evidence\">" << esc(k.evidence)
        << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
  if (recorded_times_only(r)) out << "<p class=\"note\">" << esc(kRecordedTimesNote) << "</p>\n";
}

}  // namespace

Convergence convergence_from_trace(const Trace& trace) {
  Convergence c;
  c.kernel = trace.header.kernel;
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const auto& rec : trace.records) {
    if (rec.outcome.passed() && rec.outcome.time_us &&
        (std::isnan(best) || *rec.outcome.time_us < best))
      best = *rec.outcome.time_us;
    c.best_us.push_back(best);
  }
  return c;
}

std::string report_html(const Report& r, const std::vector<Convergence>& traces) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
      << esc(title_line(r))
      << "</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
         "table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:4px "
         "8px;"
         "text-align:left;vertical-align:top}th{background:#f3f3f3}figure{margin:1.5em 0}"
         "figcaption{font-weight:bold;margin-bottom:.5em}svg "
         "text{font-size:12px;font-family:inherit}td.num,td.where{white-space:nowrap}td.num{text-"
         "align:right}"
         "td.evidence{max-width:32em;font-size:12px;color:#444}p.note{font-size:13px;color:#555}"
         "</style></head><body>\n";
  out << "<h1>" << esc(title_line(r)) << "</h1>\n<p>";
  if (!r.created.empty()) out << esc(r.created) << " · ";
  out << esc(r.tool.empty() ? "kernelevo" : r.tool);
  if (!r.mode.empty())
    out << " · " << (r.mode == "replay" ? "replayed measurements" : "measured on the GPU");
  out << "</p>\n";
  table(out, r);

  std::vector<std::pair<const KernelReport*, double>> speedups;
  std::vector<std::pair<const KernelReport*, double>> roofline;
  for (const auto& k : r.kernels) {
    if (auto s = speedup_of(r, k)) speedups.emplace_back(&k, *s);
    if (k.roofline_fraction) roofline.emplace_back(&k, *k.roofline_fraction);
  }
  if (!speedups.empty())
    bar_chart(out,
              r.kind == ReportKind::tune    ? "Speedup over the old configuration"
              : r.kind == ReportKind::check ? "Speed relative to the recorded time"
                                            : "Speed of the head relative to the base",
              speedups, 1.0, false);
  if (!traces.empty()) convergence_chart(out, traces);
  if (!roofline.empty())
    bar_chart(out, "Achieved bandwidth as a fraction of the measured ceiling (roofline)", roofline,
              1.0, true);
  else
    out << "<p>No roofline position: no kernel reported its achieved bandwidth (metrics.bytes in "
           "the spec, "
           "measured on a GPU).</p>\n";
  out << "</body></html>\n";
  return out.str();
}

}  // namespace kev::io
