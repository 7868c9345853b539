#pragma once
// The one place where `kernelevo evolve` is wired to a GPU: compile, verify and time each
// source variant through the worker process (the same gates as `tune`), with a short
// parameter search of the variant's own marked parameters.
#include <cstdint>
#include <memory>

#include "core/evolve.h"
#include "core/l2_choice.h"
#include "core/result.h"
#include "core/source_safety.h"
#include "core/spec.h"

namespace kev::cuda {

struct EvolveGpuOptions {
  int device = 0;
  std::uint64_t seed = 1;
  std::uint64_t variant_evaluations = 12;  // parameter points tried per variant (1 = defaults only)
  L2Choice l2;                             // evolve --l2: the L2 every timed run starts from
};

// What one kernel's evolution runs on: its evaluator, and the rule for the includes its
// candidates may add (EvolveTarget::includes).
struct EvolveSetup {
  std::unique_ptr<IncludePolicy> includes;
  std::unique_ptr<VariantEvaluator> evaluator;
};

class EvolveGpu {
 public:
  virtual ~EvolveGpu() = default;
  [[nodiscard]] virtual DeviceFacts facts() const = 0;
  // Valid while this object lives; `spec` must outlive the setup. Every compile of a
  // variant runs in a child process (nvcc, scrubbed environment) after `nvcc -M` showed
  // that it reads only what `includes` allows.
  [[nodiscard]] virtual EvolveSetup setup_for(const KernelSpec& spec) = 0;
};

// An error with ExitCode::environment without a usable GPU (or a build without CUDA:
// gpu_backend_stub.cpp).
// Call it only after the API key was taken out of the environment: it starts the worker.
[[nodiscard]] Result<std::unique_ptr<EvolveGpu>> open_evolve_gpu(const EvolveGpuOptions& options);

}  // namespace kev::cuda
