#include "cli/gpu_measurer.h"

#include "cuda/gpu_backend.h"

namespace kev::cli {

Result<std::unique_ptr<Measurer>> make_gpu_measurer(const GpuMeasurerOptions& options) {
  // Probed now so that a machine without a GPU is an environment error before any work.
  auto measurer = cuda::make_spec_measurer(options.device, options.seed, options.timeout_seconds);
  if (!measurer && cuda::have_gpu())
    return make_error(measurer.error().message +
                          "; to run without one, replay recorded traces (check --replay, compare "
                          "--replay-base/--replay-head)",
                      {}, ExitCode::environment);
  return measurer;
}

}  // namespace kev::cli
