#include "core/report.h"

#include <array>
#include <ctime>
#include <utility>

namespace kev {

namespace {

constexpr std::array<std::pair<KernelVerdict, const char*>, 8> kVerdictNames{{
    {KernelVerdict::slower, "SLOWER"},
    {KernelVerdict::failed, "FAILED"},
    {KernelVerdict::stale, "STALE"},
    {KernelVerdict::missing, "MISSING"},
    {KernelVerdict::unsure, "UNSURE"},
    {KernelVerdict::faster, "FASTER"},
    {KernelVerdict::same, "SAME"},
    {KernelVerdict::pass, "PASS"},
}};

}  // namespace

const char* to_string(ReportKind k) {
  switch (k) {
    case ReportKind::tune:
      return "tune";
    case ReportKind::check:
      return "check";
    case ReportKind::compare:
      return "compare";
  }
  return "check";
}

std::optional<ReportKind> parse_report_kind(std::string_view s) {
  for (auto k : {ReportKind::tune, ReportKind::check, ReportKind::compare})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

const char* to_string(KernelVerdict v) {
  for (const auto& [verdict, name] : kVerdictNames)
    if (verdict == v) return name;
  return "UNSURE";
}

std::optional<KernelVerdict> parse_kernel_verdict(std::string_view s) {
  for (const auto& [verdict, name] : kVerdictNames)
    if (s == name) return verdict;
  return std::nullopt;
}

bool is_failure(KernelVerdict v) {
  return v == KernelVerdict::slower || v == KernelVerdict::failed;
}

VerdictCounts count_verdicts(const Report& report) {
  VerdictCounts counts;
  for (const auto& k : report.kernels) ++counts[k.verdict];
  return counts;
}

std::size_t count(const Report& report, KernelVerdict v) {
  std::size_t n = 0;
  for (const auto& k : report.kernels) n += k.verdict == v ? 1 : 0;
  return n;
}

std::size_t count_failures(const Report& report) {
  return count(report, KernelVerdict::slower) + count(report, KernelVerdict::failed);
}

std::string summary_line(const Report& report) {
  if (report.kernels.empty()) return "no kernels";
  const auto counts = count_verdicts(report);
  std::string line;
  for (const auto& [verdict, name] : kVerdictNames) {
    const auto it = counts.find(verdict);
    if (it == counts.end()) continue;
    if (!line.empty()) line += ", ";
    line += std::to_string(it->second) + " " + name;
  }
  return line;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string kernel_label(const KernelReport& k) {
  return k.bucket.empty() ? k.id : k.id + " " + k.bucket;
}

}  // namespace kev
