#pragma once
// The live SM clock and throttling reasons through NVML, loaded at run time (dlopen) so the
// tool neither links nor needs it: where it is missing, callers say there is no live clock
// source (the driver API's clock attribute is a static maximum, not a reading).
#include <optional>
#include <string>

namespace kev::cuda {

// The SM clock of CUDA device `cuda_index` now, in MHz; nullopt without NVML.
[[nodiscard]] std::optional<int> nvml_sm_clock_mhz(int cuda_index);
// Why the clock is held down ("power cap, thermal"); empty when it is not, or unknown.
[[nodiscard]] std::string nvml_throttle_reason(int cuda_index);
// Why there is no live clock source ("libnvidia-ml.so.1 not found"...).
[[nodiscard]] std::string nvml_unavailable_reason();
// The driver's version string ("580.159.04"); empty without NVML.
[[nodiscard]] std::string nvml_driver_version();

}  // namespace kev::cuda
