#pragma once
// What `check` and `compare` share: loading specs, building the replay backend from traces,
// resolving which GPU the measurements are for, and writing the report files.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/gpu_measurer.h"
#include "core/lockfile.h"
#include "core/measurer.h"
#include "core/replay_measurer.h"
#include "core/report.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev::cli {

// Loads the specs under `paths` (default "."), printing warnings; errors are reported and
// returned as one usage error.
[[nodiscard]] Result<std::vector<KernelSpec>> load_project_specs(
    const std::vector<std::string>& paths);

// "./src/a.cu" -> "src/a.cu", so report paths match the lockfile's and GitHub's.
[[nodiscard]] std::string normal_path(const std::string& path);

struct ReplayInputs {
  std::vector<std::string> head;    // traces for check, or the head of a compare
  std::vector<std::string> base;    // compare only
  std::optional<std::string> arch;  // else inferred from the lockfile by the trace's device
  std::uint64_t seed = 1;
};
// The replay backend, identified as the GPU named in the traces' headers.
[[nodiscard]] Result<std::unique_ptr<ReplayMeasurer>> make_replay_measurer(const ReplayInputs& in,
                                                                           const Lockfile& lock);

// The measurer a gate runs on and the GPU it measures for: the replay backend when `replay`
// is given, else the GPU of `gpu`. No usable GPU (making the backend or identifying the
// device) is an error with ExitCode::environment, which the command turns into a skip
// (gate_not_started).
struct GateMeasurer {
  std::unique_ptr<Measurer> measurer;
  GpuIdentity gpu;
};
[[nodiscard]] Result<GateMeasurer> make_gate_measurer(const ReplayInputs* replay,
                                                      const GpuMeasurerOptions& gpu,
                                                      const Lockfile& lock);

// Why a gate could not start measuring, as its exit code: an error of the replay's traces or
// lockfile, or any error but a missing GPU, reported as it is; a missing GPU a skip (exit 3,
// said), or, where a GPU is required, a failure whose message ends with `required_by`.
[[nodiscard]] int gate_not_started(const Error& error, bool replay, const std::string& command,
                                   bool require_gpu, const std::string& required_by);

// The end of a gate: the report written (emit_report; its mode "replay" or "gpu"), then the
// exit code: 1 with "kernelevo: COMMAND failed: summary" said when a kernel failed, else 0.
[[nodiscard]] int finish_gate(Report& report, bool replay, const std::string& command,
                              const std::string& json_path, const std::string& markdown_path);

// Writes the report: Markdown on stdout (and to `markdown_path`), JSON to `json_path`.
[[nodiscard]] Status emit_report(Report& report, const std::string& json_path,
                                 const std::string& markdown_path);

// What the build compiles for each of `specs`' sources that has a current evolved variant in
// `lock` (read from `lockfile_path`), keyed by the spec's source path: check and compare
// measure that, as the build ships it. `root`: where the specs' source paths start.
[[nodiscard]] CompiledSources compiled_sources(const std::vector<const KernelSpec*>& specs,
                                               const Lockfile* lock,
                                               const std::filesystem::path& lockfile_path,
                                               const std::filesystem::path& root = ".");

// Where the lockfile is when none is given.
[[nodiscard]] std::string default_lockfile();

// check and compare on the GPU compile what the build compiles, as tune does:
// --compile-settings (`option`), else KERNELEVO_COMPILE_SETTINGS, applied to `specs`
// (cli/tune_wiring.h's apply_build_settings).
[[nodiscard]] Status apply_gate_settings(const std::string& option, std::vector<KernelSpec>& specs);

}  // namespace kev::cli
