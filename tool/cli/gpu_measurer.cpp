#include "cli/gpu_measurer.h"

namespace kev::cli {

Result<std::unique_ptr<Measurer>> make_gpu_measurer(const GpuMeasurerOptions& options) {
  (void)options;
  return make_error(
      "no GPU measuring backend is available to check and compare in this build; "
      "replay recorded measurements with --replay TRACE",
      {}, ExitCode::environment);
}

}  // namespace kev::cli
