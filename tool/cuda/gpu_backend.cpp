#include "cuda/gpu_backend.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "cuda/compile_request.h"
#include "cuda/compilers.h"
#include "cuda/files.h"
#include "cuda/gpu_evaluator.h"
#include "cuda/memcheck.h"
#include "cuda/source_kind.h"
#include "cuda/spec_measurer.h"
#include "cuda/worker_client.h"
#include "cuda/worker_main.h"

namespace kev::cuda {

namespace {

// The compilers are shared by every kernel and GPU (they are thread-safe). Its own are made
// at the first kernel (nvcc is asked for its version), after the GPUs answered.
class GpuTuneBackend final : public TuneBackend {
 public:
  explicit GpuTuneBackend(std::function<std::unique_ptr<Runner>(int)> start_worker)
      : start_worker_(std::move(start_worker)) {}
  GpuTuneBackend(Compiler& nvrtc, Compiler& nvcc, Compiler* triton,
                 std::function<std::unique_ptr<Runner>(int)> start_worker)
      : nvrtc_(&nvrtc), nvcc_(&nvcc), triton_(triton), start_worker_(std::move(start_worker)) {}

  Result<DeviceInfo> open_device(int index) override {
    auto worker = start_worker_(index);
    auto info = worker->device_info();
    if (!info) return info.error();
    workers_[index] = std::move(worker);
    return info;
  }

  std::unique_ptr<KernelEvaluator> evaluator(const KernelSpec& spec, const SearchSpace& space,
                                             int device,
                                             const KernelEvaluatorOptions& options) override {
    std::call_once(compilers_made_, [this] {
      if (nvrtc_ == nullptr) {
        own_ = std::make_unique<CachedCompilers>();
        nvrtc_ = &own_->cached_nvrtc;
        nvcc_ = &own_->cached_nvcc;
        triton_ = &own_->cached_triton;
      }
      with_nvcc_ = std::make_unique<AutoCompiler>(*nvrtc_, *nvcc_, triton_);
      with_nvrtc_ =
          std::make_unique<AutoCompiler>(*nvrtc_, *nvcc_, triton_, DeviceCodeCompiler::nvrtc);
    });
    GpuEvaluatorOptions eo;
    eo.arch = options.arch;
    eo.timing.seed = options.seed;
    eo.timing.dirty_l2 = options.dirty_l2;
    eo.timing.charge_writeback = options.charge_writeback;
    if (options.timeout_seconds > 0.0) eo.timing.timeout_seconds = options.timeout_seconds;
    eo.source_text = options.source_text;
    AutoCompiler& compiler =
        options.device_code == DeviceCodeCompiler::nvrtc ? *with_nvrtc_ : *with_nvcc_;
    return std::make_unique<GpuEvaluator>(spec, space, compiler, *workers_.at(device), eo);
  }

  std::unique_ptr<KernelEvaluator> sibling(KernelEvaluator& first, int device) override {
    return static_cast<GpuEvaluator&>(first).sibling(*workers_.at(device));
  }

  MemcheckVerdict memcheck(KernelEvaluator& evaluator, const ParamSet& params, int device,
                           const DeviceInfo& info) override {
    const auto check = memcheck_params(static_cast<GpuEvaluator&>(evaluator), params, device, info);
    return {check.ran, check.clean, check.summary};
  }

  [[nodiscard]] bool compiles_with_nvcc(const std::string& source_text,
                                        DeviceCodeCompiler device_code) const override {
    return device_code == DeviceCodeCompiler::nvcc ||
           choose_compiler(source_text) == CompilerKind::nvcc;
  }

  [[nodiscard]] TraceCompilers trace_compilers(const KernelSpec& spec,
                                               const std::optional<std::string>& source_text,
                                               DeviceCodeCompiler device_code) const override {
    if (std::filesystem::path(spec.source).extension() == ".py") return {};
    const std::string text = source_text ? *source_text : read_whole_file(spec.source).value_or("");
    const bool host = holds_host_code(text);
    return {compiler_name(host ? DeviceCodeCompiler::nvcc : device_code),
            compiler_name(host ? DeviceCodeCompiler::nvcc : DeviceCodeCompiler::nvrtc)};
  }

 private:
  std::once_flag compilers_made_;
  std::unique_ptr<CachedCompilers> own_;
  Compiler* nvrtc_ = nullptr;
  Compiler* nvcc_ = nullptr;
  Compiler* triton_ = nullptr;
  std::unique_ptr<AutoCompiler> with_nvcc_;   // DeviceCodeCompiler::nvcc
  std::unique_ptr<AutoCompiler> with_nvrtc_;  // DeviceCodeCompiler::nvrtc
  std::function<std::unique_ptr<Runner>(int)> start_worker_;
  std::map<int, std::unique_ptr<Runner>> workers_;  // by GPU index
};

}  // namespace

bool have_gpu() { return true; }

std::unique_ptr<TuneBackend> make_tune_backend() {
  return std::make_unique<GpuTuneBackend>([](int gpu) -> std::unique_ptr<Runner> {
    return std::make_unique<WorkerRunner>(WorkerRunner::self_command(gpu));
  });
}

std::unique_ptr<TuneBackend> make_tune_backend(
    Compiler& nvrtc, Compiler& nvcc, std::function<std::unique_ptr<Runner>(int)> start_worker,
    Compiler* triton) {
  return std::make_unique<GpuTuneBackend>(nvrtc, nvcc, triton, std::move(start_worker));
}

std::optional<std::string> triton_unavailable() { return TritonCompiler().unavailable(); }

CompileOutput compile_triton(const KernelSpec& spec, const ParamSet& params,
                             const std::string& arch) {
  TritonCompiler triton;
  CachingCompiler cached(triton, CompileCache());
  return cached.compile(compile_request_for(spec, "", params, arch, false));
}

Result<std::unique_ptr<Measurer>> make_spec_measurer(int device, std::uint64_t seed,
                                                     double timeout_seconds) {
  auto measurer = std::make_unique<SpecMeasurer>(device, seed, timeout_seconds);
  if (auto gpu = measurer->identify(); !gpu) return gpu.error();
  return std::unique_ptr<Measurer>(std::move(measurer));
}

Result<DeviceInfo> probe_device(int index) {
  WorkerRunner worker(WorkerRunner::self_command(index));
  return worker.device_info();
}

int serve_gpu_worker(int device) { return serve_worker(device); }

Result<CompileOutput> compile_for_export(const KernelSpec& spec, const std::string& source_text,
                                         const ParamSet& params, const std::string& arch,
                                         bool with_reference, DeviceCodeCompiler device_code) {
  static CachedCompilers compilers;  // made at the first export compile (nvcc --version)
  CompileOutput out =
      compilers.automatic_for(device_code)
          .compile(compile_request_for(spec, source_text, params, arch, with_reference));
  if (!out.ok) {
    std::string log = out.log;
    if (log.size() > 4000) log = "..." + log.substr(log.size() - 4000);
    return make_error(spec.id + " does not compile for " + (spec.arch.empty() ? arch : spec.arch) +
                          " with " +
                          (params.empty() ? std::string("its source defaults")
                                          : std::string("the exported parameters")) +
                          ":\n" + log,
                      spec.where, ExitCode::failure);
  }
  return out;
}

}  // namespace kev::cuda
