#pragma once
// A tuned winner run once more under compute-sanitizer's memcheck, in a worker of its own:
// out-of-bounds and misaligned accesses the guard regions cannot see (reads, accesses far
// past a buffer) are reported before a configuration is locked.
#include <string>

#include "core/device.h"
#include "core/evaluation.h"
#include "core/runner.h"
#include "cuda/gpu_evaluator.h"

namespace kev::cuda {

struct MemcheckResult {
  bool ran = false;     // false: compute-sanitizer not found or could not run
  bool clean = false;   // ran, verified, and memcheck reported no error
  std::string summary;  // "0 errors", or the sanitizer's first error lines, or why it did not run
  RunReport report;     // the verification run under the sanitizer
};

// $KERNELEVO_COMPUTE_SANITIZER, else the compute-sanitizer beside nvcc, else the one on
// PATH; empty when there is none.
[[nodiscard]] std::string find_compute_sanitizer();

// Runs `params` of `evaluator`'s kernel (verification only, every problem and validate
// shape) under memcheck on GPU `device`.
MemcheckResult memcheck_params(GpuEvaluator& evaluator, const ParamSet& params, int device,
                               const DeviceInfo& info);

}  // namespace kev::cuda
