#pragma once
// Facts about one GPU, read from the driver and measured once per run (bandwidth ceilings).
#include <cstdint>
#include <string>

namespace kev {

struct DeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  std::string arch;  // "sm_90"
  int sms = 0;       // multiprocessors
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::string driver_version;  // "580.159.04" where known, else the CUDA driver API version
  std::string cuda_version;    // driver API version, "13.0"
  double copy_gbps = 0.0;      // device-to-device copy, bytes read + written per second / 1e9
  double read_gbps = 0.0;      // read-only reduction, bytes read per second / 1e9
  int sm_clock_mhz = 0;        // the clock when measured (0 = no live clock source)
  std::string clock_source;    // "nvml", or why there is none
};

}  // namespace kev
