#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>

#include "core/stats.h"
#include "cuda/driver.h"
#include "cuda/driver_runner.h"
#include "cuda/files.h"
#include "cuda/nvml_clock.h"

namespace kev::cuda {

namespace {

std::string read_driver_version() {
  if (std::string v = nvml_driver_version(); !v.empty()) return v;
  std::istringstream in(read_whole_file("/proc/driver/nvidia/version", 1u << 16).value_or(""));
  std::string line;
  if (!std::getline(in, line)) return {};
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
  std::istringstream words(line);
  std::string w;
  while (words >> w) {
    const bool version = !w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
                         w.find('.') != std::string::npos &&
                         w.find_first_not_of("0123456789.") == std::string::npos;
    if (version) return w;
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<DriverRunner>> DriverRunner::open(int device_index) {
  if (!driver_library_found())
    return make_error("no NVIDIA driver: libcuda.so.1 not found", {}, ExitCode::environment);
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS)
    return make_error("no usable CUDA driver (" + driver_error(r) + ")", {}, ExitCode::environment);
  int count = 0;
  if (CUresult r = cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0)
    return make_error("no CUDA GPU found", {}, ExitCode::environment);
  if (device_index < 0 || device_index >= count)
    return make_error("GPU " + std::to_string(device_index) + " does not exist (" +
                          std::to_string(count) + " found)",
                      {}, ExitCode::usage);
  std::unique_ptr<DriverRunner> r(new DriverRunner());
  auto check = [](CUresult e, const char* what) -> Status {
    if (e == CUDA_SUCCESS) return ok_status();
    return make_error(std::string(what) + ": " + driver_error(e), {}, ExitCode::environment);
  };
  if (auto s = check(cuDeviceGet(&r->device_, device_index), "cuDeviceGet"); !s) return s.error();
  if (auto s = check(cuDevicePrimaryCtxRetain(&r->context_, r->device_), "context"); !s)
    return s.error();
  if (auto s = check(cuCtxSetCurrent(r->context_), "context"); !s) return s.error();
  if (auto s = check(cuStreamCreate(&r->stream_, CU_STREAM_NON_BLOCKING), "stream"); !s)
    return s.error();

  DeviceInfo& info = r->info_;
  info.index = device_index;
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, r->device_);
  info.name = name;
  int major = 0, minor = 0, sms = 0, l2 = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, r->device_);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, r->device_);
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, r->device_);
  cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, r->device_);
  info.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  info.sms = sms;
  info.l2_bytes = l2;
  std::size_t mem = 0;
  cuDeviceTotalMem(&mem, r->device_);
  info.memory_bytes = static_cast<std::int64_t>(mem);
  int version = 0;
  cuDriverGetVersion(&version);
  info.cuda_version = std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
  info.driver_version = read_driver_version();

  auto helpers = HelperKernels::load(info.arch);
  if (!helpers) return helpers.error();
  r->helpers_ = std::make_unique<HelperKernels>(std::move(helpers).value());
  if (auto s = check(r->counters_.allocate(sizeof(CompareCounters)), "allocation"); !s)
    return s.error();
  // Writing twice the L2's size between timed launches evicts whatever a kernel left there.
  if (auto s = check(r->flush_.allocate(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2),
                     "allocation");
      !s)
    return s.error();
  return r;
}

DriverRunner::~DriverRunner() {
  shapes_.clear();
  flush_ = DeviceMemory();
  counters_ = DeviceMemory();
  for (CUevent e : events_) cuEventDestroy(e);
  if (helpers_ && helpers_->module) cuModuleUnload(helpers_->module);
  if (helpers_ && helpers_->code_module) cuModuleUnload(helpers_->code_module);
  if (stream_) cuStreamDestroy(stream_);
  if (context_) cuDevicePrimaryCtxRelease(device_);
}

void DriverRunner::set_ceilings(double copy_gbps, double read_gbps) {
  if (copy_gbps > 0.0 && read_gbps > 0.0) {
    info_.copy_gbps = copy_gbps;
    info_.read_gbps = read_gbps;
    ceilings_measured_ = true;
  }
}

int DriverRunner::live_sm_clock_mhz() { return nvml_sm_clock_mhz(info_.index).value_or(0); }

Status DriverRunner::measure_ceilings() {
  const std::size_t bytes =
      std::min<std::size_t>(std::size_t{1} << 30, static_cast<std::size_t>(info_.memory_bytes / 8));
  DeviceMemory a, b;
  CUevent start = nullptr, stop = nullptr;
  auto fail_with = [](CUresult e, const char* what) {
    return make_error(std::string("measuring bandwidth: ") + what + ": " + driver_error(e), {},
                      ExitCode::environment);
  };
  if (CUresult e = a.allocate(bytes); e != CUDA_SUCCESS) return fail_with(e, "allocation");
  if (CUresult e = b.allocate(bytes); e != CUDA_SUCCESS) return fail_with(e, "allocation");
  cuEventCreate(&start, CU_EVENT_DEFAULT);
  cuEventCreate(&stop, CU_EVENT_DEFAULT);
  auto timed = [&](const std::function<CUresult()>& op, std::vector<double>& ms) -> CUresult {
    for (int i = 0; i < 13; ++i) {
      cuEventRecord(start, stream_);
      if (CUresult e = op(); e != CUDA_SUCCESS) return e;
      cuEventRecord(stop, stream_);
      if (CUresult e = cuEventSynchronize(stop); e != CUDA_SUCCESS) return e;
      float t = 0.0f;
      cuEventElapsedTime(&t, start, stop);
      if (i >= 3) ms.push_back(t);  // the first three are warm-up
    }
    return CUDA_SUCCESS;
  };
  std::vector<double> copy_ms, read_ms;
  CUresult e = cuMemsetD32Async(a.get(), 0x3F800000u, bytes / 4, stream_);
  if (e == CUDA_SUCCESS)
    e = timed([&] { return cuMemcpyDtoDAsync(b.get(), a.get(), bytes, stream_); }, copy_ms);
  if (e == CUDA_SUCCESS) {
    CUdeviceptr x = a.get();
    CUdeviceptr sink = b.get();
    std::uint64_t n4 = bytes / 16;
    void* params[] = {&x, &n4, &sink};
    const auto grid = static_cast<unsigned>(info_.sms * 8);
    e = timed(
        [&] {
          return cuLaunchKernel(helpers_->read, grid, 1, 1, 256, 1, 1, 0, stream_, params, nullptr);
        },
        read_ms);
  }
  cuEventDestroy(start);
  cuEventDestroy(stop);
  if (e != CUDA_SUCCESS) return fail_with(e, "timing");
  const double b_ = static_cast<double>(bytes);
  info_.copy_gbps = 2.0 * b_ / (stats::median(copy_ms) * 1e-3) / 1e9;
  info_.read_gbps = b_ / (stats::median(read_ms) * 1e-3) / 1e9;
  ceilings_measured_ = true;
  return ok_status();
}

Result<DeviceInfo> DriverRunner::device_info() {
  if (!ceilings_measured_ && !context_lost_) {
    if (auto s = measure_ceilings(); !s) return s.error();
  }
  auto clock = nvml_sm_clock_mhz(info_.index);
  info_.sm_clock_mhz = clock.value_or(0);
  info_.clock_source = clock ? "nvml" : nvml_unavailable_reason();
  return info_;
}

}  // namespace kev::cuda
