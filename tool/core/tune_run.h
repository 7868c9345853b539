#pragma once
// The tune workflow on real kernels: for each kernel, the baseline, the search (run_tuner),
// an optional memcheck of the winner and the lock decision (a locked winner is re-measured
// and replaced only by a challenger faster with confidence), as report rows. Several GPUs:
// with at least as many kernels as GPUs each GPU takes the next kernel not yet started;
// with fewer, every GPU evaluates points of each kernel's one search. The GPU, the files
// and the console are interfaces (core/tune_backend.h), so the whole run is tested with
// fakes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/l2_choice.h"
#include "core/lock_report.h"
#include "core/tune_backend.h"
#include "core/tuner.h"

namespace kev {

struct TuneDevice {
  int index = 0;
  DeviceInfo info;
};

struct ProblemRow {
  std::string problem;
  std::optional<double> time_us;
  std::optional<double> gbps;
  std::optional<double> copy_fraction;
};

enum class LockAction {
  none,            // no winner
  locked,          // written to the lockfile
  already_locked,  // the lockfile holds the winner
  kept,            // the locked winner, re-measured, was not beaten with confidence
  not_locked,      // the winner failed memcheck (or memcheck could not run)
};

// A configuration on the Pareto front of time and a spec's objectives.
struct ParetoPoint {
  ParamSet params;
  double time_us = 0.0;
  KernelResources resources;
};

struct KernelRow {
  std::string id;
  std::string bucket;  // "cols [0, 2048)": one bucket's search of a kernel with buckets
  std::optional<double> baseline_us;
  std::optional<double> winner_us;
  std::optional<ParamSet> winner;
  std::vector<ProblemRow> problems;  // the winner's
  // The search's best was slower than the source defaults, so the winner is the defaults.
  bool defaults_locked = false;
  // A one-size bucket searched with its size defined: whether the winner is locked with it
  // (false: it was faster with confidence without). Unset for other searches.
  std::optional<bool> sized;
  std::uint64_t evaluations = 0;
  std::map<Disposition, std::uint64_t> counts;
  double elapsed_s = 0.0;
  LockAction lock = LockAction::none;
  ParamSet kept_params;  // LockAction::kept: the locked winner
  double kept_us = 0.0;  // and its time now
  // LockAction::locked: what a build used before and the winner, as this run measured both
  // (the tune report's old -> new times and the speedup's interval).
  std::optional<RunChange> change;
  // A spec with `objectives`: the Pareto front of time and its resources (by time), and the
  // rule that chose the winner (or why it could not).
  std::vector<ParetoPoint> pareto;
  std::string objectives;
  std::string failure;          // why there is no winner
  std::string memcheck;         // the sanitizer's verdict on the winner
  std::uint64_t throttled = 0;  // runs during which the worker saw the GPU throttle
  std::string throttle;         // the last such warning
  std::vector<int> gpus;        // the GPUs it was tuned on (several share one search)
  int exit_code = 0;
};

struct TuneRunOptions {
  std::string strategy = "auto";
  std::uint64_t seed = 1;
  TuneBudget budget;
  bool memcheck = false;
  bool gpus_named = false;       // --gpus was given: notes name the GPU
  L2Choice l2;                   // --l2: the L2 every timed run starts from
  double timeout_seconds = 0.0;  // --timeout: one evaluation's limit (0: the runner's default)
  DeviceCodeCompiler device_code = DeviceCodeCompiler::nvcc;  // --compiler
};

// Opens the GPUs `wanted` names; empty asks GPUs 0, 1, ... until one does not answer. An
// error (ExitCode::environment) when a wanted GPU, or GPU 0, is not there.
[[nodiscard]] Result<std::vector<TuneDevice>> open_devices(TuneBackend& backend,
                                                           const std::vector<int>& wanted,
                                                           TuneConsole& console);

// Tunes `kernels` on `devices`. Rows keep the kernels' order; a kernel with `dispatch` has a
// row per bucket (one search each, in the bucket order). An error stops the whole run
// (a trace or the lockfile cannot be written); a kernel that cannot be tuned is a row with
// a failure and an exit code.
[[nodiscard]] Result<std::vector<KernelRow>> tune_kernels(
    const std::vector<const KernelSpec*>& kernels, const std::vector<TuneDevice>& devices,
    TuneBackend& backend, TuneStore& store, TuneConsole& console, const TuneRunOptions& options);

}  // namespace kev
