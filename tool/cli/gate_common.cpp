#include "cli/gate_common.h"

#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/tune_wiring.h"
#include "cuda/gpu_backend.h"
#include "io/lockfile_json.h"
#include "io/report_json.h"
#include "io/report_markdown.h"
#include "io/source_selection.h"
#include "io/spec_loader.h"
#include "io/trace.h"

namespace kev::cli {

namespace {

Status write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return make_error("cannot write " + path, {}, ExitCode::usage);
  out << text;
  out.close();
  if (!out) return make_error("cannot write " + path, {}, ExitCode::usage);
  return ok_status();
}

}  // namespace

Result<std::vector<KernelSpec>> load_project_specs(const std::vector<std::string>& paths) {
  SpecLoad load = load_specs(paths.empty() ? std::vector<std::string>{"."} : paths);
  for (const auto& w : load.warnings) warn(w);
  if (!load.errors.empty()) {
    for (std::size_t i = 0; i + 1 < load.errors.size(); ++i) report(load.errors[i]);
    return load.errors.back();
  }
  for (auto& spec : load.specs) {
    spec.source = normal_path(spec.source);
    spec.where.file = spec.source;
  }
  return std::move(load.specs);
}

std::string normal_path(const std::string& path) {
  std::string p = std::filesystem::path(path).lexically_normal().generic_string();
  while (p.rfind("./", 0) == 0) p = p.substr(2);
  return p;
}

Result<std::unique_ptr<ReplayMeasurer>> make_replay_measurer(const ReplayInputs& in,
                                                             const Lockfile& lock) {
  std::string device;
  std::vector<std::pair<std::string, Recording>> recordings;
  for (const auto& [side, paths] : {std::pair{"head", &in.head}, std::pair{"base", &in.base}}) {
    for (const auto& path : *paths) {
      auto trace = io::read_trace(path);
      if (!trace) return trace.error();
      if (device.empty())
        device = trace->header.device;
      else if (!trace->header.device.empty() && trace->header.device != device)
        return make_error(
            "traces come from different GPUs (" + device + ", " + trace->header.device + ")",
            {path, 1, 1});
      auto rec = io::recording_from_trace(*trace, path);
      if (!rec) return rec.error();
      recordings.emplace_back(side, std::move(*rec));
    }
  }
  if (device.empty())
    return make_error("the replayed traces do not name their device", {}, ExitCode::usage);
  std::string arch = in.arch.value_or("");
  if (arch.empty())
    for (const auto& [id, kernel] : lock.kernels)
      for (const auto& [a, devices] : kernel.targets)
        if (arch.empty() && devices.count(device) != 0) arch = a;
  if (arch.empty())
    return make_error("cannot tell the architecture of " + device +
                          " from the lockfile (no entry for it); give --arch",
                      {}, ExitCode::usage);
  auto m = std::make_unique<ReplayMeasurer>(GpuIdentity{arch, device}, in.seed);
  for (auto& [side, rec] : recordings) m->add(side, std::move(rec));
  return m;
}

Result<GateMeasurer> make_gate_measurer(const ReplayInputs* replay, const GpuMeasurerOptions& gpu,
                                        const Lockfile& lock) {
  GateMeasurer out;
  if (replay != nullptr) {
    auto m = make_replay_measurer(*replay, lock);
    if (!m) return m.error();
    out.measurer = std::move(*m);
  } else {
    auto m = make_gpu_measurer(gpu);
    if (!m) return m.error();
    out.measurer = std::move(*m);
  }
  auto identity = out.measurer->identify();
  if (!identity) return identity.error();
  out.gpu = *identity;
  return out;
}

int gate_not_started(const Error& error, bool replay, const std::string& command, bool require_gpu,
                     const std::string& required_by) {
  if (replay || error.code != ExitCode::environment) return report(error);
  if (require_gpu) {
    Error e = error;
    if (!required_by.empty()) e.message += " (" + required_by + ")";
    e.code = ExitCode::failure;
    return report(e);
  }
  std::cerr << "kernelevo: " << error.message << "\nkernelevo: " << command
            << " skipped: no GPU (exit 3)\n";
  return static_cast<int>(ExitCode::environment);
}

int finish_gate(Report& report, bool replay, const std::string& command,
                const std::string& json_path, const std::string& markdown_path) {
  report.mode = replay ? "replay" : "gpu";
  if (auto written = emit_report(report, json_path, markdown_path); !written)
    return cli::report(written.error());
  if (count_failures(report) > 0) {
    std::cerr << "kernelevo: " << command << " failed: " << summary_line(report) << "\n";
    return static_cast<int>(ExitCode::failure);
  }
  return 0;
}

Status emit_report(Report& report, const std::string& json_path, const std::string& markdown_path) {
  report.tool = std::string("kernelevo ") + KERNELEVO_VERSION;
  const std::string md = io::report_markdown(report);
  std::cout << md;
  if (!json_path.empty()) {
    auto s = write_text(json_path, io::report_to_json(report));
    if (!s) return s;
  }
  if (!markdown_path.empty()) {
    auto s = write_text(markdown_path, md);
    if (!s) return s;
  }
  return ok_status();
}

std::string default_lockfile() { return kLockfileName; }

CompiledSources compiled_sources(const std::vector<const KernelSpec*>& specs, const Lockfile* lock,
                                 const std::filesystem::path& lockfile_path,
                                 const std::filesystem::path& root) {
  CompiledSources out;
  if (lock == nullptr) return out;
  for (const KernelSpec* spec : specs) {
    if (out.count(spec->source)) continue;
    SelectOptions options;
    const std::filesystem::path source(spec->source);
    options.source = source.is_absolute() ? source : root / source;
    options.lockfile = lockfile_path;
    options.source_name = normal_path(spec->source);
    for (const KernelSpec* other : specs)  // what a variant must keep (io/source_selection.h)
      if (other->source == spec->source)
        options.kernels.emplace(other->id,
                                KernelNames{options.source_name, other->kernel, other->reference});
    auto selected = select_source(lock, options);
    if (!selected || selected->variant.empty()) continue;  // the original is what builds
    std::error_code ec;
    auto lock_dir = lockfile_path.parent_path();
    if (lock_dir.empty()) lock_dir = ".";
    const auto shown = std::filesystem::proximate(selected->variant, lock_dir, ec);
    out[spec->source] = {selected->text,
                         "the evolved variant " + (ec ? selected->variant : shown).string()};
  }
  return out;
}

Status apply_gate_settings(const std::string& option, std::vector<KernelSpec>& specs) {
  const auto backend = cuda::make_tune_backend();  // which compiler a source needs
  auto applied = apply_build_settings(option, *backend, specs, {}, DeviceCodeCompiler::nvcc);
  if (!applied) return applied.error();
  return ok_status();
}

}  // namespace kev::cli
