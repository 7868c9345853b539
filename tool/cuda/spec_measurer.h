#pragma once
// The GPU Measurer of `check` and `compare`: each target's spec is compiled and measured
// through a worker process, exactly as `tune` evaluates a candidate (GpuEvaluator): the
// source's defaults give the reference and the baseline, the target's parameters are
// compiled (through the compile cache), verified against the reference on fresh inputs and
// timed from a cold L2. One round is one such run; its samples feed the gate's statistics.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/measurer.h"
#include "cuda/compilers.h"
#include "cuda/worker_client.h"

namespace kev::cuda {

class SpecMeasurer final : public Measurer {
 public:
  // `timeout_seconds`: one evaluation's limit, 0 for the runner's default.
  SpecMeasurer(int device, std::uint64_t seed, double timeout_seconds);
  ~SpecMeasurer() override;
  SpecMeasurer(const SpecMeasurer&) = delete;
  SpecMeasurer& operator=(const SpecMeasurer&) = delete;

  // Errors carry ExitCode::environment: no GPU, or the worker cannot reach it.
  Result<GpuIdentity> identify() override;
  Measurement measure(const MeasureTarget& target) override;

  // Where a target's source is read from: the source under the side's root when it is
  // there (the base worktree of a compare), else the spec's path as loaded.
  [[nodiscard]] static std::string source_path(const MeasureTarget& target);

 private:
  struct Kernel;  // one side's kernel: its spec, space, evaluator and baseline state
  Kernel* kernel_for(const MeasureTarget& target, std::string& error);

  std::uint64_t seed_;
  double timeout_seconds_;  // 0: the runner's default
  WorkerRunner worker_;
  CachedCompilers compilers_;
  std::string arch_;
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;  // by side, kernel id, problems
};

}  // namespace kev::cuda
