#pragma once
// `kernelevo compare`: the base revision's kernels (with its locked parameters) against the
// head's, measured on one GPU in one job, interleaved A B A B over rounds so drift hits both
// sides alike. Verdicts come from stats::compare (rank test, bootstrap interval of the
// median ratio, minimum relative and absolute change).
#include <string>
#include <vector>

#include "core/lockfile.h"
#include "core/measurer.h"
#include "core/report.h"
#include "core/stats.h"

namespace kev {

struct CompareSide {
  const Lockfile* lock = nullptr;        // may be null: every kernel runs its source defaults
  std::vector<const KernelSpec*> specs;  // may be empty in replay mode: ids from the lockfile
  std::string root;          // where the side's sources are (the base worktree, or the head)
  CompiledSources compiled;  // current evolved variants, which its build compiles
};

struct CompareGateOptions {
  int rounds = 10;
  stats::CompareOptions stats;
};

struct CompareInput {
  CompareSide base;
  CompareSide head;
  GpuIdentity gpu;
  std::string base_ref;
  CompareGateOptions options;
};

[[nodiscard]] Report run_compare(const CompareInput& input, Measurer& measurer);

}  // namespace kev
