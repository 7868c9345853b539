#pragma once
// The Runner on a real GPU through the CUDA driver API (DESIGN.md section 3): guarded
// buffers, seeded inputs generated on the device, a reference run on the same inputs,
// verification rounds with poisoned or decoy-filled outputs, and event timing from a cold L2.
// A kernel that faults leaves the context unusable: the report says so (context_lost) and
// the worker process that owns this runner exits.
#include <cuda.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/arg_layout.h"
#include "core/runner.h"
#include "cuda/device_buffer.h"
#include "cuda/helper_kernels.h"

namespace kev::cuda {

class DriverRunner final : public Runner {
 public:
  // Errors carry ExitCode::environment (no driver, no GPU).
  static Result<std::unique_ptr<DriverRunner>> open(int device_index);
  ~DriverRunner() override;
  DriverRunner(const DriverRunner&) = delete;
  DriverRunner& operator=(const DriverRunner&) = delete;

  Result<DeviceInfo> device_info() override;
  RunReport run(const RunRequest& request) override;
  // Ceilings measured earlier (by a worker that was since restarted): no need to re-measure.
  void set_ceilings(double copy_gbps, double read_gbps);

  // Per-shape cache of seeded inputs and the reference's outputs for each round; public
  // only so the implementation's helpers can name it.
  struct RoundData {
    std::vector<DeviceMemory> inputs;    // per argument: pristine input (input, const, inout)
    std::vector<DeviceMemory> expected;  // per argument: the reference's output (output, inout)
  };
  struct ShapeData {
    ResolvedProblem reference_layout;
    std::vector<RoundData> rounds;     // built lazily, one per verification round
    std::vector<DeviceMemory> decoys;  // per output argument: finite random fill
  };

 private:
  DriverRunner() = default;
  Status measure_ceilings();
  int live_sm_clock_mhz();

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  DeviceInfo info_;
  bool ceilings_measured_ = false;
  bool context_lost_ = false;
  std::unique_ptr<HelperKernels> helpers_;
  DeviceMemory flush_;
  DeviceMemory counters_;
  std::vector<CUevent> events_;
  std::string reference_key_;  // the cache below belongs to this reference
  std::map<std::string, ShapeData> shapes_;

  friend class ShapeRun;
};

}  // namespace kev::cuda
