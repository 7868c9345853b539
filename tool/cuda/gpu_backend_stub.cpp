// A build without CUDA (KERNELEVO_WITH_CUDA off): the only file of the cuda layer.
#include "cuda/evolve_gpu.h"
#include "cuda/gpu_backend.h"

namespace kev::cuda {

namespace {

Error no_cuda(const std::string& what) {
  return make_error("this kernelevo was built without CUDA: " + what, {}, ExitCode::environment);
}

class NoGpuBackend final : public TuneBackend {
 public:
  Result<DeviceInfo> open_device(int) override { return no_cuda("tune needs --replay FILE"); }
  std::unique_ptr<KernelEvaluator> evaluator(const KernelSpec&, const SearchSpace&, int,
                                             const KernelEvaluatorOptions&) override {
    return nullptr;
  }
  std::unique_ptr<KernelEvaluator> sibling(KernelEvaluator&, int) override { return nullptr; }
  MemcheckVerdict memcheck(KernelEvaluator&, const ParamSet&, int, const DeviceInfo&) override {
    return {};
  }
  [[nodiscard]] bool compiles_with_nvcc(const std::string&, DeviceCodeCompiler) const override {
    return false;
  }
  [[nodiscard]] TraceCompilers trace_compilers(const KernelSpec&, const std::optional<std::string>&,
                                               DeviceCodeCompiler) const override {
    return {};
  }
};

}  // namespace

bool have_gpu() { return false; }

std::unique_ptr<TuneBackend> make_tune_backend() { return std::make_unique<NoGpuBackend>(); }

std::unique_ptr<TuneBackend> make_tune_backend(Compiler&, Compiler&,
                                               std::function<std::unique_ptr<Runner>(int)>,
                                               Compiler*) {
  return std::make_unique<NoGpuBackend>();
}

// Without CUDA no kernel is compiled at all; the GPU commands say so themselves.
std::optional<std::string> triton_unavailable() {
  return std::string("this kernelevo was built without CUDA: it compiles no Triton kernel");
}

CompileOutput compile_triton(const KernelSpec&, const ParamSet&, const std::string&) {
  CompileOutput out;
  out.log = "this kernelevo was built without CUDA: it compiles no Triton kernel";
  return out;
}

Result<std::unique_ptr<Measurer>> make_spec_measurer(int, std::uint64_t, double) {
  return no_cuda(
      "check and compare run only from recorded traces (check --replay, compare "
      "--replay-base/--replay-head)");
}

Result<DeviceInfo> probe_device(int) { return no_cuda("no GPU"); }

Result<CompileOutput> compile_for_export(const KernelSpec&, const std::string&, const ParamSet&,
                                         const std::string&, bool, DeviceCodeCompiler) {
  return no_cuda("export --torch compiles cubins with the CUDA toolkit");
}

int serve_gpu_worker(int) { return static_cast<int>(ExitCode::environment); }

Result<std::unique_ptr<EvolveGpu>> open_evolve_gpu(const EvolveGpuOptions&) {
  return no_cuda("evolve needs a GPU (--dry-run prints the prompts without one)");
}

}  // namespace kev::cuda
