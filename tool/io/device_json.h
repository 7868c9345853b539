#pragma once
// A DeviceInfo as JSON, every field under its own name: what `devices --format json` prints
// and what a worker sends (cuda/worker_protocol.h reads it back).
#include <nlohmann/json.hpp>

#include "core/device.h"

namespace kev::io {

template <class Json>
Json device_to_json(const DeviceInfo& d) {
  return Json{{"index", d.index},
              {"name", d.name},
              {"arch", d.arch},
              {"sms", d.sms},
              {"l2_bytes", d.l2_bytes},
              {"memory_bytes", d.memory_bytes},
              {"driver_version", d.driver_version},
              {"cuda_version", d.cuda_version},
              {"copy_gbps", d.copy_gbps},
              {"read_gbps", d.read_gbps},
              {"sm_clock_mhz", d.sm_clock_mhz},
              {"clock_source", d.clock_source}};
}

}  // namespace kev::io
