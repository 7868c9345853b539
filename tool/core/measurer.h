#pragma once
// The measuring seam of `check` and `compare`: one round of timed runs of a kernel under
// given parameters. The GPU backend compiles, verifies and times on the device; the replay
// backend (core/replay_measurer.h) draws from recorded measurements, so the gate is
// testable and demonstrable without a GPU.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

// The GPU the measurements come from: lockfile entries are keyed by both.
struct GpuIdentity {
  std::string arch;    // "sm_90"
  std::string device;  // "NVIDIA H200"
};

// What a build compiles in place of a marked source file: the evolved variant recorded in
// the lockfile while it is current (the choice `kernelevo select-source` makes).
struct CompiledSource {
  std::string text;   // to compile instead of reading the spec's source file
  std::string label;  // for reports: "the evolved variant kernelevo-variants/x.cu"
};
// By the spec's source path, as loaded.
using CompiledSources = std::map<std::string, CompiledSource>;

struct MeasureTarget {
  std::string kernel_id;
  const KernelSpec* spec = nullptr;  // may be null in replay mode
  std::string root;                  // the project root the spec's source path is relative to
  std::string side;                  // "head" (check, and the head of a compare) or "base"
  ParamSet params;                   // empty: the source defaults
  const CompiledSource* compiled = nullptr;  // set: compile this text, not the source file
  bool dirty_l2 = false;  // time from a dirty L2 (the entry was tuned so: LockEntry::timing)
  // The compiler of device-only code (the entry's: LockEntry::compiler).
  DeviceCodeCompiler device_code = DeviceCodeCompiler::nvcc;
  // Charge each timed run the write-back it leaves (the entry was tuned so: LockEntry::timing).
  bool charge_writeback = false;
};

struct Measurement {
  Disposition disposition = Disposition::invalid;
  std::vector<double> samples_us;  // this round's timed samples (passed only)
  std::optional<double> roofline_fraction;
  std::string detail;  // why it did not pass
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // The GPU measured on. An error with ExitCode::environment means there is none.
  virtual Result<GpuIdentity> identify() = 0;
  // One round: compile (once, cached), verify, time. Never throws.
  virtual Measurement measure(const MeasureTarget& target) = 0;
};

}  // namespace kev
