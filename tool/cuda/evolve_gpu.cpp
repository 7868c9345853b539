#include "cuda/evolve_gpu.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/spec_space.h"
#include "core/strategy.h"
#include "core/tuner.h"
#include "cuda/compile_cache.h"
#include "cuda/compile_request.h"
#include "cuda/gpu_evaluator.h"
#include "cuda/include_policy.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/untrusted_source_compiler.h"
#include "cuda/worker_client.h"

namespace kev::cuda {

namespace {

// The variant's text in a hidden file beside the original, so its relative includes resolve
// as the original's do; removed when done.
class VariantFile {
 public:
  VariantFile(const std::string& original, const std::string& text, int serial) {
    const std::filesystem::path src(original);
    path_ = src.parent_path() / (".kernelevo-evolve-" + std::to_string(getpid()) + "-" +
                                 std::to_string(serial) + src.extension().string());
    std::ofstream out(path_, std::ios::binary);
    out << text;
    ok_ = static_cast<bool>(out);
  }
  ~VariantFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  VariantFile(const VariantFile&) = delete;
  VariantFile& operator=(const VariantFile&) = delete;
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
  bool ok_ = false;
};

class GpuVariantEvaluator : public VariantEvaluator {
 public:
  // `compiler` compiles every variant (and its reference) whatever the text holds.
  GpuVariantEvaluator(const KernelSpec& spec, std::unique_ptr<Compiler> compiler, Runner& runner,
                      std::string arch, EvolveGpuOptions options)
      : spec_(spec),
        compiler_(std::move(compiler)),
        runner_(runner),
        arch_(std::move(arch)),
        options_(options) {}

  VariantMeasurement evaluate(const std::string& text) override {
    VariantMeasurement m;
    VariantFile file(spec_.source, text, ++serial_);
    if (!file.ok()) {
      m.outcome.detail = "cannot write " + file.path();
      return m;
    }
    KernelSpec spec = spec_;
    spec.source = file.path();
    SpecSpace space(spec, spec.problems);
    GpuEvaluatorOptions eo;
    eo.arch = spec.arch.empty() ? arch_ : spec.arch;
    eo.timing.seed = options_.seed;
    eo.timing.dirty_l2 = options_.l2.dirty_l2;
    eo.timing.charge_writeback = options_.l2.charge_writeback;
    GpuEvaluator evaluator(spec, space, *compiler_, runner_, eo);
    auto baseline = evaluator.measure_baseline();
    if (!baseline) {
      m.outcome.disposition = Disposition::compile_failed;
      m.outcome.detail = baseline.error().message;
      return m;
    }
    m.outcome = *baseline;
    m.params = evaluator.defaults();
    if (!m.outcome.passed() || options_.variant_evaluations <= 1) return m;
    auto strategy = make_strategy("auto", space, options_.seed);
    if (!strategy) return m;
    TuneRequest request;
    request.space = &space;
    request.strategy = strategy->get();
    request.evaluator = &evaluator;
    request.budget.evaluations = options_.variant_evaluations;
    request.lookahead = 4;
    const TuneResult tuned = run_tuner(std::move(request));
    if (tuned.best && tuned.best->outcome.time_us && m.outcome.time_us &&
        *tuned.best->outcome.time_us < *m.outcome.time_us) {
      m.outcome = tuned.best->outcome;
      m.params = space.to_params(tuned.best->point);
    }
    return m;
  }

 private:
  const KernelSpec& spec_;
  std::unique_ptr<Compiler> compiler_;
  Runner& runner_;
  std::string arch_;
  EvolveGpuOptions options_;
  int serial_ = 0;
};

class CudaEvolveGpu : public EvolveGpu {
 public:
  explicit CudaEvolveGpu(const EvolveGpuOptions& options)
      : options_(options),
        worker_(WorkerRunner::self_command(options.device)),
        cached_nvcc_(nvcc_, CompileCache()) {}

  Status start() {
    auto info = worker_.device_info();
    if (!info)
      return make_error("no GPU to evolve on (" + info.error().message +
                            "); --dry-run prints the prompts without one",
                        {}, ExitCode::environment);
    device_ = *info;
    return ok_status();
  }
  DeviceFacts facts() const override {
    return {device_.name,     device_.arch,      device_.sms,
            device_.l2_bytes, device_.copy_gbps, device_.read_gbps};
  }
  EvolveSetup setup_for(const KernelSpec& spec) override {
    IncludePolicyOptions po;
    po.source = spec.source;
    po.include_dirs = spec.include_dirs;
    const std::string arch = spec.arch.empty() ? device_.arch : spec.arch;
    if (auto reads = nvcc_.list_dependencies(
            compile_request_for(spec, {}, {}, arch, /*with_reference=*/true)))
      po.original_reads = std::move(*reads);
    auto policy = std::make_unique<ProjectIncludePolicy>(std::move(po));
    auto compiler = std::make_unique<UntrustedSourceCompiler>(nvcc_, cached_nvcc_, *policy);
    EvolveSetup setup;
    setup.evaluator = std::make_unique<GpuVariantEvaluator>(spec, std::move(compiler), worker_,
                                                            device_.arch, options_);
    setup.includes = std::move(policy);
    return setup;
  }

 private:
  EvolveGpuOptions options_;
  WorkerRunner worker_;
  // Variants are model output: compiled by nvcc in a child process only, never by NVRTC
  // in this process (whose memory holds the API key).
  NvccCompiler nvcc_;
  CachingCompiler cached_nvcc_;
  DeviceInfo device_;
};

}  // namespace

Result<std::unique_ptr<EvolveGpu>> open_evolve_gpu(const EvolveGpuOptions& options) {
  auto gpu = std::make_unique<CudaEvolveGpu>(options);
  if (auto s = gpu->start(); !s) return s.error();
  return std::unique_ptr<EvolveGpu>(std::move(gpu));
}

}  // namespace kev::cuda
