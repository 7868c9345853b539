#include "cuda/spec_measurer.h"

#include <filesystem>
#include <optional>

#include "core/run_measurement.h"
#include "core/spec_space.h"
#include "cuda/gpu_evaluator.h"

namespace kev::cuda {

struct SpecMeasurer::Kernel {
  KernelSpec spec;  // with the source path resolved
  std::unique_ptr<SpecSpace> space;
  std::unique_ptr<GpuEvaluator> evaluator;
  std::optional<Measurement> setup_failure;  // the reference or the source is unusable
};

SpecMeasurer::SpecMeasurer(int device, std::uint64_t seed, double timeout_seconds)
    : seed_(seed), timeout_seconds_(timeout_seconds), worker_(WorkerRunner::self_command(device)) {}

SpecMeasurer::~SpecMeasurer() {
  kernels_.clear();  // evaluators finish their compiles before the compilers go away
}

Result<GpuIdentity> SpecMeasurer::identify() {
  auto device = worker_.device_info();
  if (!device)
    return make_error("no GPU to measure on (" + device.error().message + ")", {},
                      ExitCode::environment);
  arch_ = device->arch;
  return GpuIdentity{device->arch, device->name};
}

std::string SpecMeasurer::source_path(const MeasureTarget& target) {
  const std::filesystem::path source = target.spec->source;
  if (source.is_absolute() || target.root.empty() || target.root == ".") return source.string();
  const auto under_root = std::filesystem::path(target.root) / source;
  std::error_code ec;
  if (target.side == "base" || std::filesystem::exists(under_root, ec)) return under_root.string();
  return source.string();
}

SpecMeasurer::Kernel* SpecMeasurer::kernel_for(const MeasureTarget& target, std::string& error) {
  // The problems belong to the key: each bucket of a kernel with `dispatch` is measured on
  // its own problems, by an evaluator (and baseline) of its own.
  std::string key = target.side + '\n' + target.kernel_id + (target.dirty_l2 ? "\ndirty" : "") +
                    (target.charge_writeback ? "\nwrite-back" : "") +
                    (target.device_code == DeviceCodeCompiler::nvrtc ? "\nnvrtc" : "");
  for (const Problem& p : target.spec->problems) key += '\n' + p.to_string();
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second.get();
  if (arch_.empty()) {
    auto id = identify();
    if (!id) {
      error = id.error().message;
      return nullptr;
    }
  }
  auto k = std::make_unique<Kernel>();
  k->spec = *target.spec;
  k->spec.source = source_path(target);
  k->space = std::make_unique<SpecSpace>(k->spec, k->spec.problems);
  GpuEvaluatorOptions options;
  options.arch = arch_;
  options.timing.seed = seed_;
  options.timing.dirty_l2 = target.dirty_l2;
  options.timing.charge_writeback = target.charge_writeback;
  if (timeout_seconds_ > 0.0) options.timing.timeout_seconds = timeout_seconds_;
  options.compile_threads = 1;  // one target is compiled at a time
  if (target.compiled != nullptr) options.source_text = target.compiled->text;
  k->evaluator = std::make_unique<GpuEvaluator>(
      k->spec, *k->space, compilers_.automatic_for(target.device_code), worker_, options);
  // Reads the source, compiles the reference (the source's defaults) and runs it once. A
  // baseline that does not verify is no verdict on the target: its own run decides.
  auto baseline = k->evaluator->measure_baseline();
  if (!baseline) {
    Measurement m;
    std::error_code ec;
    m.disposition = std::filesystem::exists(k->spec.source, ec) ? Disposition::compile_failed
                                                                : Disposition::invalid;
    m.detail = baseline.error().to_string();
    k->setup_failure = std::move(m);
  }
  return kernels_.emplace(key, std::move(k)).first->second.get();
}

Measurement SpecMeasurer::measure(const MeasureTarget& target) {
  Measurement m;
  if (target.spec == nullptr) {
    m.disposition = Disposition::invalid;
    m.detail =
        "no marked kernel with id '" + target.kernel_id + "' in the " + target.side + " sources";
    return m;
  }
  std::string error;
  Kernel* k = kernel_for(target, error);
  if (k == nullptr) {
    m.disposition = Disposition::invalid;
    m.detail = error;
    return m;
  }
  if (k->setup_failure) return *k->setup_failure;
  const Outcome outcome = k->evaluator->evaluate_params(target.params);
  if (outcome.disposition == Disposition::compile_failed) {
    m.disposition = outcome.disposition;
    m.detail = outcome.detail;
    return m;
  }
  return measurement_from(k->evaluator->last_report());
}

}  // namespace kev::cuda
