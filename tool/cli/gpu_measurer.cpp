#include "cli/gpu_measurer.h"

#if KERNELEVO_HAVE_CUDA
#include "cuda/spec_measurer.h"
#endif

namespace kev::cli {

Result<std::unique_ptr<Measurer>> make_gpu_measurer(const GpuMeasurerOptions& options) {
#if KERNELEVO_HAVE_CUDA
  auto measurer = std::make_unique<cuda::SpecMeasurer>(options.device, options.seed);
  // Probed now so that a machine without a GPU is an environment error before any work.
  if (auto gpu = measurer->identify(); !gpu) {
    return make_error(gpu.error().message +
                          "; to run without one, replay recorded traces (check --replay, compare "
                          "--replay-base/--replay-head)",
                      {}, ExitCode::environment);
  }
  return std::unique_ptr<Measurer>(std::move(measurer));
#else
  (void)options;
  return make_error(
      "this kernelevo was built without CUDA: check and compare run only from recorded "
      "traces (check --replay, compare --replay-base/--replay-head)",
      {}, ExitCode::environment);
#endif
}

}  // namespace kev::cli
