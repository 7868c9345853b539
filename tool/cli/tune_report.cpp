#include "cli/tune_report.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <utility>

#include "cli/command.h"
#include "cli/tune_trace.h"
#include "io/atomic_file.h"
#include "io/compressed_file.h"
#include "io/lockfile_json.h"
#include "io/report_annotations.h"
#include "io/report_gbench.h"
#include "io/report_json.h"
#include "io/report_markdown.h"
#include "io/trace.h"

namespace kev::cli {

namespace {

namespace fs = std::filesystem;

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

Result<Report> tune_report_from_lockfile(const std::string& text, const std::string& path,
                                         const LockReportFilter& filter, const Lockfile* base,
                                         std::span<const RunChange> changes) {
  auto lock = parse_lockfile(text, path);
  if (!lock) return lock.error();
  Report report = report_from_lockfile(*lock, filter, base, changes);
  report.tool = std::string("kernelevo ") + KERNELEVO_VERSION;
  return report;
}

Result<Report> read_tune_report(const std::string& path, const LockReportFilter& filter,
                                const Lockfile* base, std::span<const RunChange> changes) {
  auto text = io::read_maybe_gzip(path);
  if (!text) return text.error();
  return tune_report_from_lockfile(*text, path, filter, base, changes);
}

Result<Lockfile> read_base_lockfile(const std::string& path) {
  auto text = io::read_maybe_gzip(path);
  if (!text) return text.error();
  return parse_lockfile(*text, path);
}

std::string render_report(const Report& report, const std::string& format,
                          const std::vector<io::Convergence>& series) {
  if (format == "markdown") return io::report_markdown(report);
  if (format == "json") return io::report_to_json(report);
  if (format == "gbench") return io::report_gbench(report, host_name());
  if (format == "annotations") return io::report_annotations(report);
  return io::report_html(report, series);
}

Result<std::vector<io::Convergence>> read_convergence(const std::vector<std::string>& paths) {
  std::vector<io::Convergence> series;
  for (const auto& path : paths) {
    auto trace = io::read_trace(path);
    if (!trace) return trace.error();
    series.push_back(io::convergence_from_trace(*trace));
  }
  return series;
}

std::vector<std::string> tune_run_traces(const std::string& trace,
                                         const std::vector<std::string>& ids) {
  std::vector<std::string> found;
  if (trace.empty()) return found;
  if (is_file(trace)) found.push_back(trace);
  for (const auto& id : ids) {
    const std::string path = per_kernel_trace(trace, id);
    if (is_file(path) && std::find(found.begin(), found.end(), path) == found.end())
      found.push_back(path);
  }
  return found;
}

Status write_tune_reports(const Report& report, const std::vector<io::Convergence>& series,
                          const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    return make_error("cannot create the report directory " + dir +
                          (ec ? ": " + ec.message() : ": not a directory"),
                      {}, ExitCode::failure);
  const std::pair<const char*, const char*> files[] = {{kReportMarkdownName, "markdown"},
                                                       {kReportJsonName, "json"},
                                                       {kReportHtmlName, "html"},
                                                       {kReportGbenchName, "gbench"}};
  for (const auto& [name, format] : files) {
    const fs::path path = fs::path(dir) / name;
    if (auto st = write_file_atomically(path, render_report(report, format, series)); !st)
      return make_error(
          "cannot write the report " + path.string() + " (" + st.error().message + ")", {},
          ExitCode::failure);
  }
  return ok_status();
}

namespace {

// The run's traces: --trace (else --resume, which then receives the new evaluations), and
// the per-kernel traces a run of several kernels writes.
std::vector<io::Convergence> run_convergence(const TuneOptions& options, const Report& report) {
  std::vector<std::string> ids;
  for (const auto& k : report.kernels) ids.push_back(k.id);
  std::vector<io::Convergence> series;
  for (const auto& path :
       tune_run_traces(options.trace.empty() ? options.resume : options.trace, ids)) {
    auto one = read_convergence({path});
    if (!one)
      warn("the HTML report leaves out the trace " + path + ": " + one.error().message);
    else
      series.push_back(std::move(one->front()));
  }
  return series;
}

// The GPU path's report: the lockfile tune updates (only --kernel's entries when given).
// Without a lockfile (nothing was ever locked) there is nothing to report.
std::optional<Result<Report>> lockfile_report(const TuneOptions& options, const Lockfile* before,
                                              std::span<const RunChange> changes) {
  const std::string path = options.lockfile.empty() ? kLockfileName : options.lockfile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    warn("--report: no lockfile at " + path + ", so no report was written");
    return std::nullopt;
  }
  auto report = read_tune_report(path, {}, before, changes);
  if (report && !options.kernel.empty())
    std::erase_if(report->kernels, [&](const KernelReport& k) { return k.id != options.kernel; });
  return report;
}

}  // namespace

Status prepare_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    return make_error("--report " + dir + ": cannot create the report directory" +
                      (ec ? ": " + ec.message() : ": not a directory"));
  return ok_status();
}

std::optional<Lockfile> lockfile_before_tune(const TuneOptions& options) {
  const std::string path = options.lockfile.empty() ? kLockfileName : options.lockfile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  auto lock = read_base_lockfile(path);
  if (!lock) return std::nullopt;  // tune itself reports a lockfile it cannot read
  return std::move(*lock);
}

int write_run_reports(const TuneOptions& options, int tune_rc,
                      const std::optional<Report>& replayed, const std::optional<Lockfile>& before,
                      std::span<const RunChange> changes) {
  if (tune_rc != 0 && tune_rc != static_cast<int>(ExitCode::failure)) return tune_rc;
  std::optional<Result<Report>> built;
  if (!options.replay.empty()) {
    if (replayed) built = *replayed;
  } else {
    built = lockfile_report(options, before ? &*before : nullptr, changes);
  }
  if (!built) return tune_rc;
  if (!*built) return report(built->error());
  const auto series = run_convergence(options, **built);
  if (auto st = write_tune_reports(**built, series, options.report); !st) return report(st.error());
  std::cerr << "kernelevo: reports written to " << options.report << '\n';
  return tune_rc;
}

}  // namespace kev::cli
