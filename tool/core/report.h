#pragma once
// The result of a tune, check or compare, independent of how it is written (Markdown, JSON,
// HTML, Google Benchmark JSON, GitHub annotations: io/report_*.h).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evaluation.h"
#include "core/params_text.h"
#include "core/ratio_text.h"  // percent_change and the other ratio words of reports

namespace kev {

enum class ReportKind { tune, check, compare };
[[nodiscard]] const char* to_string(ReportKind k);  // "tune", "check", "compare"
[[nodiscard]] std::optional<ReportKind> parse_report_kind(std::string_view s);

// What a report says about one kernel. Names are written to reports that users keep.
enum class KernelVerdict {
  pass,     // check: not slower than recorded beyond the threshold (with confidence)
  slower,   // confidently and materially slower: fails the gate
  faster,   // confidently and materially faster
  same,     // compare: a material change is ruled out
  unsure,   // too noisy to say either way: never fails
  failed,   // no longer compiles, launches or verifies: fails the gate
  stale,    // measured on another version of the source (source_hash mismatch)
  missing,  // a marked kernel with no entry for this GPU, or on one side of a compare only
};
[[nodiscard]] const char* to_string(KernelVerdict v);  // "PASS", "SLOWER", ...
[[nodiscard]] std::optional<KernelVerdict> parse_kernel_verdict(std::string_view s);
// SLOWER and FAILED fail the gate; everything else is reported only.
[[nodiscard]] bool is_failure(KernelVerdict v);

struct KernelReport {
  std::string id;
  std::string bucket;  // "cols [0, 2048)": one bucket of a kernel with buckets
  std::string source;  // path relative to the project root
  int line = 0;        // line of the @kernelevo mark (0 = unknown)
  std::string arch;    // "sm_90"
  std::string device;  // "NVIDIA H200"
  ParamSet params;     // the head's (or the locked) configuration
  // compare: the base revision's configuration; tune: the old one, what a build used before
  // (the base lockfile's entry; empty: the source defaults).
  ParamSet base_params;
  KernelVerdict verdict = KernelVerdict::unsure;
  // tune: the old configuration's time and the winner's; check: the recorded time and the
  // measured one; compare: the base revision's median and the head's. No baseline_us: no
  // baseline measurement, so no verdict about speed.
  std::optional<double> baseline_us;
  std::optional<double> time_us;
  std::optional<double> ratio;  // time / baseline (> 1 is slower)
  // 95% interval of the ratio, only from measurements that carry one (a lockfile does not).
  std::optional<double> ratio_ci_low;
  std::optional<double> ratio_ci_high;
  std::optional<double> p_value;
  int samples = 0;                          // measurements behind the verdict (per side)
  std::string evidence;                     // one line saying why, for people
  std::optional<double> speedup;            // tune: baseline / time (the old configuration's)
  std::optional<double> roofline_fraction;  // achieved bandwidth / measured ceiling
  std::string strategy;                     // tune: which strategy found the winner
  std::optional<int> evaluations;           // tune: configurations measured
};

// The kernel as a report's row names it: its id, then its bucket when it has one
// ("softmax_rows cols [0, 2048)").
[[nodiscard]] std::string kernel_label(const KernelReport& k);

struct Report {
  static constexpr int kVersion = 1;
  ReportKind kind = ReportKind::check;
  std::string tool;     // "kernelevo 0.1.0"
  std::string created;  // UTC, ISO 8601
  std::string arch;
  std::string device;
  std::string base_ref;              // compare only
  std::optional<double> threshold;   // check: allowed slowdown; compare: minimum relative change
  std::optional<double> min_abs_us;  // compare: minimum absolute change
  std::optional<int> rounds;
  std::string mode;  // "gpu" or "replay": where the measurements came from
  std::vector<KernelReport> kernels;
};

using VerdictCounts = std::map<KernelVerdict, std::size_t>;
[[nodiscard]] VerdictCounts count_verdicts(const Report& report);
[[nodiscard]] std::size_t count_failures(const Report& report);
[[nodiscard]] std::size_t count(const Report& report, KernelVerdict v);
// "2 SLOWER, 1 PASS" in a fixed order, failures first; "no kernels" when empty.
[[nodiscard]] std::string summary_line(const Report& report);
// Current UTC time, ISO 8601.
[[nodiscard]] std::string utc_timestamp();

}  // namespace kev
