// kernelevo tune: search a kernel's parameter space (a recorded space with --replay).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/timeout_option.h"
#include "cli/tune_options.h"
#include "cli/tune_replay.h"
#include "cli/tune_report.h"
#include "cli/tune_spec.h"
#include "core/l2_choice.h"
#include "core/shard.h"
#include "core/strategy.h"

namespace kev::cli {
namespace {

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
  std::optional<Lockfile> before;
  if (!options.report.empty() && options.replay.empty()) before = lockfile_before_tune(options);
  std::optional<Report> replayed;
  std::vector<RunChange> changes;
  const int rc =
      options.replay.empty() ? tune_specs(options, &changes) : tune_replay(options, &replayed);
  if (options.report.empty()) return rc;
  return write_run_reports(options, rc, replayed, before, changes);
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
      sub->add_option("--timeout", options.timeout, kTimeoutHelp);
      sub->add_flag("--memcheck", options.memcheck,
                    "Run each winner once more under compute-sanitizer memcheck before locking it");
      sub->add_option("--l2", options.l2,
                      "The L2 every timed run starts from, cold either way: clean (the flush's "
                      "dirty lines written back first), dirty (left for the run to write back, "
                      "as after another kernel's writes and as triton's do_bench), or "
                      "clean+write-back (clean, and the write-back of the lines a run leaves "
                      "dirty charged to it: a kernel that keeps its output in the L2 pays for it)")
          ->check(CLI::IsMember(l2_choice_names()))
          ->capture_default_str();
      sub->add_option("--compiler", options.compiler,
                      "What compiles CUDA C++ without host code: nvcc (as a CMake build "
                      "compiles the winners, so the code timed is the code shipped) or nvrtc "
                      "(for kernels a program compiles at run time with NVRTC)")
          ->check(CLI::IsMember({"nvcc", "nvrtc"}))
          ->capture_default_str();
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
