// kernelevo tune: search a kernel's parameter space (a recorded space with --replay).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "cli/tune_options.h"
#include "cli/tune_replay.h"
#include "cli/tune_report.h"
#include "cli/tune_spec.h"
#include "core/shard.h"
#include "core/strategy.h"
#include "io/lockfile_json.h"

namespace kev::cli {
namespace {

// --report DIR is made before tuning, so a directory that cannot be made fails at once
// rather than after a long search.
Status prepare_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    return make_error("--report " + dir + ": cannot create the report directory" +
                      (ec ? ": " + ec.message() : ": not a directory"));
  return ok_status();
}

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
std::optional<Result<Report>> lockfile_report(const TuneOptions& options) {
  const std::string path = options.lockfile.empty() ? kLockfileName : options.lockfile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    warn("--report: no lockfile at " + path + ", so no report was written");
    return std::nullopt;
  }
  auto report = read_tune_report(path);
  if (report && !options.kernel.empty())
    std::erase_if(report->kernels, [&](const KernelReport& k) { return k.id != options.kernel; });
  return report;
}

// Writes --report DIR after a tune that ran (exit 0, or 1: a kernel without a winner);
// returns the exit code of the whole command.
int write_run_reports(const TuneOptions& options, int tune_rc,
                      const std::optional<Report>& replayed) {
  if (tune_rc != 0 && tune_rc != static_cast<int>(ExitCode::failure)) return tune_rc;
  std::optional<Result<Report>> built;
  if (!options.replay.empty()) {
    if (replayed) built = *replayed;
  } else {
    built = lockfile_report(options);
  }
  if (!built) return tune_rc;
  if (!*built) return report(built->error());
  const auto series = run_convergence(options, **built);
  if (auto st = write_tune_reports(**built, series, options.report); !st) return report(st.error());
  std::cerr << "kernelevo: reports written to " << options.report << '\n';
  return tune_rc;
}

int run_tune(const TuneOptions& options) {
  if (options.replay.empty() && options.paths.empty())
    return report(make_error("tune needs kernel sources (PATH...) or --replay FILE"));
  if (!options.replay.empty() && !options.paths.empty())
    return report(
        make_error("--replay tunes a recorded space: give either PATHs or --replay, not both"));
  if (options.noise && options.replay.empty())
    return report(make_error("--noise only applies to --replay"));
  if (!options.shard.empty()) {
    if (!options.replay.empty())
      return report(
          make_error("--shard splits the kernels of PATHs across runners; not with --replay"));
    if (auto shard = parse_shard(options.shard); !shard) return report(shard.error());
  }
  if (!options.gpus.empty()) {
    if (!options.replay.empty()) return report(make_error("--gpus does not apply to --replay"));
    if (auto devices = tune_devices(options); !devices) return report(devices.error());
  }
  if (!options.report.empty())
    if (auto st = prepare_report_dir(options.report); !st) return report(st.error());
  std::optional<Report> replayed;
  const int rc = options.replay.empty() ? tune_specs(options) : tune_replay(options, &replayed);
  if (options.report.empty()) return rc;
  return write_run_reports(options, rc, replayed);
}

const CommandRegistrar registrar{
    "tune", [](CLI::App& app, int& exit_code) {
      static TuneOptions options;
      auto* sub =
          app.add_subcommand("tune", "Search kernels' parameter spaces and lock the winners");
      sub->add_option("paths", options.paths, ".cu sources, directories or kernelevo.yaml files");
      sub->add_option("--kernel", options.kernel, "Tune only the kernel with this id");
      std::string names;
      for (const auto& n : strategy_names()) names += (names.empty() ? "" : ", ") + n;
      sub->add_option("--strategy", options.strategy, "Search strategy: " + names)
          ->check(CLI::IsMember(strategy_names()))
          ->capture_default_str();
      sub->add_option("--budget", options.budget,
                      "Evaluations in total, a resumed trace's included (default " +
                          std::to_string(kDefaultBudget) + " unless --time is given)");
      sub->add_option("--time", options.time, "Wall-time budget: 90s, 5m, 1h");
      sub->add_option("--seed", options.seed, "Seed of the strategy (and of --noise)")
          ->capture_default_str();
      sub->add_option("--trace", options.trace, "Record every evaluation to this JSON Lines file");
      sub->add_option("--resume", options.resume,
                      "Continue from this trace without repeating evaluations");
      sub->add_option("--lockfile", options.lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option(
          "--replay", options.replay,
          "Evaluate from a recording (kernelevo trace, Kernel Tuner cachefile, T4 results)");
      sub->add_option(
          "--shard", options.shard,
          "I/N: tune only this runner's share of the kernels (sorted by id, the k-th from 0 "
          "goes to shard k % N + 1)");
      sub->add_option("--gpus", options.gpus,
                      "GPUs to tune on: all, one index, or a list such as 0,1 (one worker per GPU; "
                      "with at least as many kernels as GPUs each kernel is tuned on one GPU, "
                      "otherwise the GPUs share each kernel's search)");
      sub->add_flag("--memcheck", options.memcheck,
                    "Run each winner once more under compute-sanitizer memcheck before locking it");
      sub->add_flag("--noise", options.noise,
                    "With --replay: sample recorded repeats, not their mean");
      sub->add_option("--format", options.format, "Output format")
          ->check(CLI::IsMember({"text", "json"}))
          ->capture_default_str();
      sub->add_option("--report", options.report,
                      "Write the run's reports into this directory: report.md, report.json, "
                      "report.html, benchmark.json (also when a kernel found no winner)");
      sub->add_option("--compile-settings", options.compile_settings,
                      "The build's compile settings (a JSON file, or a directory of them); default "
                      "$KERNELEVO_COMPILE_SETTINGS");
      sub->callback([&exit_code] { exit_code = run_tune(options); });
    }};

}  // namespace
}  // namespace kev::cli
