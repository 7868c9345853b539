#pragma once
// A device that loads a compiled kernel, runs it on every problem of its spec, verifies it
// against a reference kernel and times it (DESIGN.md section 3). Implemented by the CUDA
// driver-API runner (in a worker process) and by fakes in tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler.h"
#include "core/device.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"
#include "core/timing_names.h"

namespace kev {

// A compiled image and the symbol to launch from it.
struct KernelImage {
  std::string image;     // CUBIN (or PTX) bytes
  std::string function;  // symbol name, as cuModuleGetFunction wants it
  ImageLaunch launch{};  // what its compiler decided of the launch (Triton), else empty
};

struct TimingOptions {
  int warmup_runs = 2;
  int min_runs = 20;
  int max_runs = 400;
  double min_seconds = 0.015;  // keep timing until both min_runs and min_seconds are reached
  double max_seconds = 1.0;
  int verify_rounds = 2;  // verification rounds before timing, each with fresh inputs
  bool flush_l2 = true;   // cold L2 before every timed launch
  // A launch ends with its last writes in the L2, and the dirty lines it leaves there are
  // written back after its end event. With the L2 flushed, the flush after each timed launch
  // is timed too, and what it takes beyond a flush of a clean L2 is charged to the launch:
  // its deferred write-back, which back-to-back launches pay in the next one. Off: on an
  // H100 and an H200 it charged within 2% of nothing (bench/results/
  // 2026-12-06-writeback-charge; tests/gpu/writeback_charge_test.cpp sets it either way).
  bool charge_writeback = false;
  // With the L2 flushed: leave the flush's own lines dirty (written, not read back), so the
  // launch starts from an L2 full of dirty lines and writes them back as it evicts them: the
  // state a kernel starts from after another one's writes, and triton's do_bench's. A cache
  // hint that wins from a clean L2 need not win from this one
  // (bench/results/2026-12-06-writeback-charge). The write-back charge is not taken then.
  bool dirty_l2 = false;
  // Launches shorter than this (median of the first samples) are timed in batches, back to
  // back over rotating argument sets together larger than 4x the L2; 0 turns batching off.
  double batch_below_us = 20.0;
  // Timed launches rotate over this many input sets of different content, each with its own
  // reference outputs (the verification rounds' sets), so a kernel that memoizes its result
  // or skips work on an unchanged input is timed doing the work. 0: as many as fit in
  // timing_set_budget_bytes, at least 2 and at most 4 (1 reproduces single-set timing, for
  // the red-team tests).
  int timing_sets = 0;
  std::int64_t timing_set_budget_bytes = std::int64_t{1} << 30;
  // Every timed launch is verified against its set's reference when comparing its outputs
  // costs less than this fraction of the launch (estimated from the outputs' size and the
  // measured copy bandwidth, against the first samples); otherwise the last launch of every
  // group of eight and one other chosen at random per group (batched: the last batch and a
  // random one).
  double verify_every_launch_below_ratio = 0.1;
  double incumbent_us = 0.0;  // best time so far (0 = none): lets timing stop early
  double early_stop_ratio = 1.3;
  double ceiling_margin = 1.10;  // faster than ceiling * margin: rejected as suspicious
  std::uint64_t seed = 1;
  double timeout_seconds = 20.0;  // one evaluation, all problems (watchdog)
};

// How a run's times were taken, as traces record it ("cold-l2", "cold-dirty-l2",
// "cold-l2+write-back", "warm-l2"): times taken one way do not compare with times taken
// another.
[[nodiscard]] inline const char* timing_method(const TimingOptions& t) {
  if (!t.flush_l2) return kTimingWarmL2;
  if (t.dirty_l2) return kTimingColdDirtyL2;
  return t.charge_writeback ? kTimingWriteBack : kTimingColdL2;
}

struct RunRequest {
  KernelSpec spec;  // args, launch, tolerance, metrics, problems, validate
  ParamSet params;  // the candidate's parameter values (empty for the baseline)
  KernelImage candidate;
  KernelImage reference;  // run on the same inputs; its outputs are the truth
  // The reference's parameter values (launch geometry): the source's defaults.
  ParamSet reference_params;
  TimingOptions timing;
  bool time_it = true;  // false: verify only
};

struct ProblemResult {
  std::string problem;  // "rows=4096,cols=8192"
  bool timed = false;   // a `problems` shape (timed) or a `validate` shape (verified only)
  Disposition disposition = Disposition::passed;
  std::optional<double> time_us;
  std::optional<double> ci_low_us;
  std::optional<double> ci_high_us;
  std::vector<double> samples_us;
  std::optional<double> gbps;           // metrics.bytes / time
  std::optional<double> copy_fraction;  // gbps / measured copy bandwidth
  bool stopped_early = false;           // clearly slower than the incumbent
  int launches_per_sample = 1;          // > 1: batched (each sample a batch's mean)
  std::string detail;
};

struct RunReport {
  Outcome outcome;
  std::vector<ProblemResult> problems;
  int sm_clock_mhz_before = 0;  // 0 = no live clock source
  int sm_clock_mhz_after = 0;
  std::string warnings;       // throttling and the like
  bool context_lost = false;  // the device context is unusable: the worker must restart
};

class Runner {
 public:
  virtual ~Runner() = default;
  // The device, with its bandwidth ceilings (measured on the first call, then cached).
  virtual Result<DeviceInfo> device_info() = 0;
  // Never throws; every failure is a disposition in the report.
  virtual RunReport run(const RunRequest& request) = 0;
};

}  // namespace kev
