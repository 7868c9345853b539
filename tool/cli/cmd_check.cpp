// `kernelevo check [PATH...]`: every locked winner of this GPU still compiles, verifies and
// is not slower than recorded beyond the threshold (core/check.h says how it is judged).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/command.h"
#include "cli/gate_common.h"
#include "cli/timeout_option.h"
#include "core/check.h"
#include "io/hash.h"
#include "io/lockfile_json.h"

namespace {

struct CheckArgs {
  std::vector<std::string> paths;
  std::string lockfile = kev::kLockfileName;
  kev::CheckOptions options;
  bool require_gpu = false;
  bool require_gpu_from_env = false;
  int device = 0;
  std::vector<std::string> replay;
  std::string arch;
  std::uint64_t seed = 1;
  std::string report_json;
  std::string report_md;
  std::string compile_settings;
  std::string timeout;  // --timeout
};

// KERNELEVO_REQUIRE_GPU as the environment of this run has it: 1, on, true, yes or y (any
// case) require a GPU.
bool env_requires_gpu() {
  const char* value = std::getenv("KERNELEVO_REQUIRE_GPU");
  if (value == nullptr) return false;
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return v == "1" || v == "on" || v == "true" || v == "yes" || v == "y";
}

int run_check_command(const CheckArgs& args) {
  const bool require_gpu = args.require_gpu || (args.require_gpu_from_env && env_requires_gpu());
  const auto timeout = kev::cli::evaluation_timeout(args.timeout);
  if (!timeout) return kev::cli::report(timeout.error());
  auto lock = kev::read_lockfile_or_empty(args.lockfile);
  if (!lock) return kev::cli::report(lock.error());

  const bool replay = !args.replay.empty();
  std::vector<kev::KernelSpec> specs;
  if (!args.paths.empty() || !replay) {
    auto loaded = kev::cli::load_project_specs(args.paths);
    if (!loaded) return kev::cli::report(loaded.error());
    specs = std::move(*loaded);
  }
  if (!replay)
    if (auto st = kev::cli::apply_gate_settings(args.compile_settings, specs); !st)
      return kev::cli::report(st.error());

  kev::cli::ReplayInputs in;
  in.head = args.replay;
  if (!args.arch.empty()) in.arch = args.arch;
  in.seed = args.seed;
  auto gate = kev::cli::make_gate_measurer(replay ? &in : nullptr,
                                           {args.device, args.seed, *timeout}, *lock);
  if (!gate)
    return kev::cli::gate_not_started(
        gate.error(), replay, "check", require_gpu,
        "--require-gpu or KERNELEVO_REQUIRE_GPU: a missing GPU fails the check");
  const kev::GpuIdentity& gpu = gate->gpu;

  kev::CheckInput input;
  input.lock = &*lock;
  for (const auto& s : specs) input.specs.push_back(&s);
  input.gpu = gpu;
  const auto root = std::filesystem::path(args.lockfile).parent_path();
  input.root = root.empty() ? "." : root.string();
  input.source_hash = [root](const std::string& source) -> std::optional<std::string> {
    auto h = kev::sha256_of_file(root / source);
    if (!h) return std::nullopt;
    return *h;
  };
  input.options = args.options;
  if (!replay) input.compiled = kev::cli::compiled_sources(input.specs, &*lock, args.lockfile);
  std::cerr << "kernelevo: checking the locked winners for " << gpu.device << " (" << gpu.arch
            << ")" << (replay ? " from recorded traces" : "") << "\n";
  kev::Report report = kev::run_check(input, *gate->measurer);
  return kev::cli::finish_gate(report, replay, "check", args.report_json, args.report_md);
}

kev::cli::CommandRegistrar reg{
    "check", [](CLI::App& app, int& exit_code) {
      static CheckArgs args;
      auto* sub = app.add_subcommand(
          "check", "Check that locked winners still verify and are not slower than recorded");
      sub->add_option("paths", args.paths,
                      "Sources or directories with marked kernels (default: .)");
      sub->add_option("--lockfile", args.lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option("--threshold", args.options.threshold,
                      "Allowed slowdown against the recorded time (default 0.05)")
          ->check(CLI::Range(0.0, 10.0));
      sub->add_option("--min-abs-us", args.options.min_abs_us,
                      "A slowdown below this many microseconds never fails (default 1)")
          ->check(CLI::Range(0.0, 1e9));
      sub->add_option("--rounds", args.options.rounds, "Measurement rounds per kernel (default 10)")
          ->check(CLI::Range(1, 100000));
      sub->add_flag("--require-gpu", args.require_gpu,
                    "No GPU is a failure (exit 1), not a skip (exit 3)");
      sub->add_flag("--require-gpu-from-env", args.require_gpu_from_env,
                    "--require-gpu when KERNELEVO_REQUIRE_GPU is 1, on, true, yes or y in the "
                    "environment (the CMake module's tests: KERNELEVO_REQUIRE_GPU=1 ctest)");
      sub->add_option("--device", args.device, "GPU index (default 0)");
      sub->add_option("--timeout", args.timeout, kev::cli::kTimeoutHelp);
      sub->add_option("--replay", args.replay,
                      "Measure from a kernelevo trace instead of the GPU (repeatable)");
      sub->add_option("--arch", args.arch,
                      "Architecture of the replayed GPU (default: from the lockfile)");
      sub->add_option("--seed", args.seed, "Seed of the replay noise and the bootstrap");
      sub->add_option("--report-json", args.report_json, "Write the JSON report here");
      sub->add_option("--report-md", args.report_md, "Write the Markdown report here");
      sub->add_option("--compile-settings", args.compile_settings,
                      "The build's compile settings (a JSON file, or a directory of them), as "
                      "tune takes them; default $KERNELEVO_COMPILE_SETTINGS");
      sub->callback([&exit_code] { exit_code = run_check_command(args); });
    }};

}  // namespace
