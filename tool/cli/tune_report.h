#pragma once
// Reports of a tune, shared by `kernelevo report` (a lockfile read as a tune report, any one
// format) and `kernelevo tune --report DIR` (the run's four report files).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/tune_options.h"
#include "core/lock_report.h"
#include "core/report.h"
#include "core/result.h"
#include "io/report_html.h"

namespace kev::cli {

// The files `tune --report DIR` writes into DIR.
inline constexpr const char* kReportMarkdownName = "report.md";
inline constexpr const char* kReportJsonName = "report.json";
inline constexpr const char* kReportHtmlName = "report.html";
inline constexpr const char* kReportGbenchName = "benchmark.json";

// A lockfile's text as a tune report, stamped with this kernelevo's name and version; each
// row against `base`'s entry (the lockfile before the tune), else the source defaults; the
// rows a run locked (`changes`) on that run's own measurements.
Result<Report> tune_report_from_lockfile(const std::string& text, const std::string& path,
                                         const LockReportFilter& filter = {},
                                         const Lockfile* base = nullptr,
                                         std::span<const RunChange> changes = {});
// The same, read from the lockfile at `path` (plain or gzip).
Result<Report> read_tune_report(const std::string& path, const LockReportFilter& filter = {},
                                const Lockfile* base = nullptr,
                                std::span<const RunChange> changes = {});
// The lockfile at `path` (plain or gzip), as the base of a tune report.
Result<Lockfile> read_base_lockfile(const std::string& path);

// Renders `report` as "markdown", "json", "gbench", "annotations" or "html" (the best-so-far
// chart drawn from `series`).
[[nodiscard]] std::string render_report(const Report& report, const std::string& format,
                                        const std::vector<io::Convergence>& series = {});

// Best-so-far series of the traces at `paths` (the HTML report's chart).
Result<std::vector<io::Convergence>> read_convergence(const std::vector<std::string>& paths);

// The traces a tune run wrote, those that exist: `trace` itself, and `trace` named per
// kernel (FILE.jsonl as FILE.<id>.jsonl, as tune does when it tunes several kernels) for
// each id of `ids`.
[[nodiscard]] std::vector<std::string> tune_run_traces(const std::string& trace,
                                                       const std::vector<std::string>& ids);

// Writes report.md, report.json, report.html and benchmark.json into `dir` (created when
// missing), each atomically. The error names the file that could not be written.
Status write_tune_reports(const Report& report, const std::vector<io::Convergence>& series,
                          const std::string& dir);

// --report DIR, made before tuning so a directory that cannot be made fails at once.
Status prepare_report_dir(const std::string& dir);

// The lockfile tune starts from (nothing when there is none or it cannot be read: tune
// reports that itself), read before tuning: the old side of the run's report.
[[nodiscard]] std::optional<Lockfile> lockfile_before_tune(const TuneOptions& options);

// After a tune that ran (exit 0, or 1: a kernel without a winner), writes its reports into
// --report DIR: the replayed run (`replayed`), else the lockfile tune updated (only
// --kernel's entries when given) against the lockfile `before` the tune, the winners it
// locked on its own measurements (`changes`), with best-so-far charts from the run's traces.
// Returns the exit code of the whole command.
[[nodiscard]] int write_run_reports(const TuneOptions& options, int tune_rc,
                                    const std::optional<Report>& replayed,
                                    const std::optional<Lockfile>& before,
                                    std::span<const RunChange> changes = {});

}  // namespace kev::cli
