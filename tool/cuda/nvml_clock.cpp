#include "cuda/nvml_clock.h"

#include <cuda.h>
#include <dlfcn.h>

#include <mutex>

namespace kev::cuda {

namespace {

using Handle = void*;
using InitFn = int (*)();
using ByBusFn = int (*)(const char*, Handle*);
using ClockFn = int (*)(Handle, int, unsigned*);
using ReasonsFn = int (*)(Handle, unsigned long long*);
using VersionFn = int (*)(char*, unsigned);

struct Nvml {
  bool ok = false;
  std::string why;
  ByBusFn by_bus = nullptr;
  ClockFn clock = nullptr;
  ReasonsFn reasons = nullptr;
  VersionFn version = nullptr;
};

const Nvml& nvml() {
  static Nvml lib;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      lib.why = "no live clock source: libnvidia-ml.so.1 not found";
      return;
    }
    auto init = reinterpret_cast<InitFn>(dlsym(h, "nvmlInit_v2"));
    lib.by_bus = reinterpret_cast<ByBusFn>(dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    lib.clock = reinterpret_cast<ClockFn>(dlsym(h, "nvmlDeviceGetClockInfo"));
    lib.reasons =
        reinterpret_cast<ReasonsFn>(dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    lib.version = reinterpret_cast<VersionFn>(dlsym(h, "nvmlSystemGetDriverVersion"));
    if (!init || !lib.by_bus || !lib.clock) {
      lib.why = "no live clock source: NVML lacks the functions needed";
      return;
    }
    if (init() != 0) {
      lib.why = "no live clock source: NVML failed to initialise";
      return;
    }
    lib.ok = true;
  });
  return lib;
}

std::optional<Handle> handle_for(int cuda_index) {
  const Nvml& n = nvml();
  if (!n.ok) return std::nullopt;
  CUdevice dev = 0;
  char bus[64] = {};
  if (cuDeviceGet(&dev, cuda_index) != CUDA_SUCCESS) return std::nullopt;
  if (cuDeviceGetPCIBusId(bus, sizeof bus, dev) != CUDA_SUCCESS) return std::nullopt;
  Handle h = nullptr;
  if (n.by_bus(bus, &h) != 0) return std::nullopt;
  return h;
}

}  // namespace

std::optional<int> nvml_sm_clock_mhz(int cuda_index) {
  auto h = handle_for(cuda_index);
  if (!h) return std::nullopt;
  unsigned mhz = 0;
  constexpr int kClockSm = 1;
  if (nvml().clock(*h, kClockSm, &mhz) != 0) return std::nullopt;
  return static_cast<int>(mhz);
}

std::string nvml_throttle_reason(int cuda_index) {
  auto h = handle_for(cuda_index);
  if (!h || !nvml().reasons) return {};
  unsigned long long bits = 0;
  if (nvml().reasons(*h, &bits) != 0) return {};
  std::string out;
  auto add = [&](unsigned long long bit, const char* name) {
    if (bits & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(0x4ull, "software power cap");
  add(0x8ull, "hardware slowdown");
  add(0x20ull, "software thermal slowdown");
  add(0x40ull, "hardware thermal slowdown");
  add(0x80ull, "power brake");
  return out;
}

std::string nvml_unavailable_reason() {
  const Nvml& n = nvml();
  return n.ok ? std::string() : n.why;
}

std::string nvml_driver_version() {
  const Nvml& n = nvml();
  if (!n.ok || !n.version) return {};
  char buf[96] = {};
  if (n.version(buf, sizeof buf) != 0) return {};
  return buf;
}

}  // namespace kev::cuda
