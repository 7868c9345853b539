#pragma once
// The GPU backend of `check` and `compare`: the one place where the measuring interface is
// wired to the device (compile, verify, time through the worker). Without it, both commands
// run from recorded traces (--replay...).
#include <memory>

#include "core/measurer.h"
#include "core/result.h"

namespace kev::cli {

struct GpuMeasurerOptions {
  int device = 0;
  std::uint64_t seed = 1;
  double timeout_seconds = 0.0;  // --timeout: one evaluation's limit (0: the runner's default)
};

// An error with ExitCode::environment when there is no usable GPU.
[[nodiscard]] Result<std::unique_ptr<Measurer>> make_gpu_measurer(
    const GpuMeasurerOptions& options);

}  // namespace kev::cli
