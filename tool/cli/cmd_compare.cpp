// `kernelevo compare --base REF [PATH...]`: the base revision's kernels and locked
// parameters against the head's, measured interleaved on one GPU (core/compare_gate.h).
#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <thread>

#include "cli/base_worktree.h"
#include "cli/command.h"
#include "cli/gate_common.h"
#include "cli/timeout_option.h"
#include "core/compare_gate.h"
#include "io/lockfile_json.h"

namespace {

struct CompareArgs {
  std::string base;
  std::vector<std::string> paths;
  std::string lockfile = kev::kLockfileName;
  kev::CompareGateOptions options;
  bool require_gpu = false;
  int device = 0;
  std::vector<std::string> replay_base;
  std::vector<std::string> replay_head;
  std::string arch;
  std::uint64_t seed = 1;
  std::string report_json;
  std::string report_md;
  std::string compile_settings;
  std::string timeout;  // --timeout
  double pause_after_worktree_s = 0;
};

// Specs of one side, with sources relative to that side's project directory.
kev::Result<std::vector<kev::KernelSpec>> side_specs(const std::vector<std::string>& paths,
                                                     const std::filesystem::path& dir) {
  std::vector<std::string> mapped;
  for (const auto& p : paths.empty() ? std::vector<std::string>{"."} : paths)
    mapped.push_back(std::filesystem::path(p).is_absolute() ? p : (dir / p).string());
  auto specs = kev::cli::load_project_specs(mapped);
  if (!specs) return specs;
  const std::string prefix = kev::cli::normal_path(dir.string()) + "/";
  for (auto& s : *specs)
    if (s.source.rfind(prefix, 0) == 0) s.source = s.source.substr(prefix.size());
  return specs;
}

int run_compare_command(const CompareArgs& args) {
  const bool replay = !args.replay_head.empty() || !args.replay_base.empty();
  if (replay && (args.replay_head.empty() || args.replay_base.empty()))
    return kev::cli::report(kev::make_error("replay needs both --replay-base and --replay-head"));
  const auto timeout = kev::cli::evaluation_timeout(args.timeout);
  if (!timeout) return kev::cli::report(timeout.error());

  auto head_lock = kev::read_lockfile_or_empty(args.lockfile);
  if (!head_lock) return kev::cli::report(head_lock.error());

  if (!replay) {  // a settings file that cannot be read is bad input, GPU or not
    std::vector<kev::KernelSpec> none;
    if (auto st = kev::cli::apply_gate_settings(args.compile_settings, none); !st)
      return kev::cli::report(st.error());
  }
  kev::cli::ReplayInputs in;
  in.head = args.replay_head;
  in.base = args.replay_base;
  if (!args.arch.empty()) in.arch = args.arch;
  in.seed = args.seed;
  auto gate = kev::cli::make_gate_measurer(replay ? &in : nullptr,
                                           {args.device, args.seed, *timeout}, *head_lock);
  if (!gate)
    return kev::cli::gate_not_started(gate.error(), replay, "compare", args.require_gpu, "");
  const kev::GpuIdentity& gpu = gate->gpu;

  auto worktree = kev::cli::BaseWorktree::create(args.base);
  if (!worktree) return kev::cli::report(worktree.error());
  std::cerr << "kernelevo: base " << args.base << " checked out at " << worktree->root().string()
            << "\n";
  if (args.pause_after_worktree_s > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(args.pause_after_worktree_s));

  const std::filesystem::path lock_rel = args.lockfile;
  const auto base_lock_path =
      lock_rel.is_absolute() ? lock_rel : worktree->project_dir() / lock_rel;
  auto base_lock = kev::read_lockfile_or_empty(base_lock_path);
  if (!base_lock) return kev::cli::report(base_lock.error());

  std::vector<kev::KernelSpec> head_specs;
  std::vector<kev::KernelSpec> base_specs;
  if (!args.paths.empty() || !replay) {
    auto h = side_specs(args.paths, ".");
    if (!h) return kev::cli::report(h.error());
    head_specs = std::move(*h);
    auto b = side_specs(args.paths, worktree->project_dir());
    if (!b) return kev::cli::report(b.error());
    base_specs = std::move(*b);
  }
  // One build's settings for both revisions: a base source is found under its head path.
  if (!replay)
    for (auto* side : {&head_specs, &base_specs})
      if (auto st = kev::cli::apply_gate_settings(args.compile_settings, *side); !st)
        return kev::cli::report(st.error());

  kev::CompareInput input;
  input.base = {&*base_lock, {}, worktree->project_dir().string(), {}};
  input.head = {&*head_lock, {}, ".", {}};
  for (const auto& s : base_specs) input.base.specs.push_back(&s);
  for (const auto& s : head_specs) input.head.specs.push_back(&s);
  if (!replay) {  // each side's current evolved variants, as its build compiles them
    input.base.compiled = kev::cli::compiled_sources(input.base.specs, &*base_lock, base_lock_path,
                                                     worktree->project_dir());
    input.head.compiled = kev::cli::compiled_sources(input.head.specs, &*head_lock, args.lockfile);
  }
  input.gpu = gpu;
  input.base_ref = args.base;
  input.options = args.options;
  input.options.stats.bootstrap.seed ^= args.seed;
  std::cerr << "kernelevo: comparing " << args.base << " with the head on " << gpu.device << " ("
            << gpu.arch << "), " << args.options.rounds << " interleaved rounds\n";
  kev::Report report = kev::run_compare(input, *gate->measurer);
  return kev::cli::finish_gate(report, replay, "compare", args.report_json, args.report_md);
}

kev::cli::CommandRegistrar reg{
    "compare", [](CLI::App& app, int& exit_code) {
      static CompareArgs args;
      auto* sub = app.add_subcommand(
          "compare", "Compare kernels of another git revision with the head's, on this GPU");
      sub->add_option("--base", args.base, "Base revision (branch, tag or commit)")->required();
      sub->add_option("paths", args.paths,
                      "Sources or directories with marked kernels (default: .)");
      sub->add_option("--lockfile", args.lockfile,
                      "Lockfile, relative to the project (default: kernelevo.lock.json)");
      sub->add_option("--rounds", args.options.rounds, "Interleaved rounds A B A B (default 10)")
          ->check(CLI::Range(1, 100000));
      sub->add_option("--min-change", args.options.stats.min_rel_change,
                      "Minimum relative change that counts (default 0.05)")
          ->check(CLI::Range(0.0, 10.0));
      sub->add_option("--min-abs-us", args.options.stats.min_abs_us,
                      "Minimum absolute change in microseconds (default 2)")
          ->check(CLI::Range(0.0, 1e9));
      sub->add_flag("--require-gpu", args.require_gpu,
                    "No GPU is a failure (exit 1), not a skip (exit 3)");
      sub->add_option("--device", args.device, "GPU index (default 0)");
      sub->add_option("--timeout", args.timeout, kev::cli::kTimeoutHelp);
      sub->add_option("--replay-base", args.replay_base,
                      "Measure the base from a kernelevo trace (repeatable)");
      sub->add_option("--replay-head", args.replay_head,
                      "Measure the head from a kernelevo trace (repeatable)");
      sub->add_option("--arch", args.arch,
                      "Architecture of the replayed GPU (default: from the lockfile)");
      sub->add_option("--seed", args.seed, "Seed of the replay noise and the bootstrap");
      sub->add_option("--report-json", args.report_json, "Write the JSON report here");
      sub->add_option("--report-md", args.report_md, "Write the Markdown report here");
      sub->add_option("--compile-settings", args.compile_settings,
                      "The build's compile settings (a JSON file, or a directory of them), as "
                      "tune takes them, for both revisions; default $KERNELEVO_COMPILE_SETTINGS");
      sub->add_option(
             "--pause-after-worktree", args.pause_after_worktree_s,
             "Seconds to wait once the base worktree exists (tests interrupting a compare)")
          ->group("");
      sub->callback([&exit_code] { exit_code = run_compare_command(args); });
    }};

}  // namespace
