#pragma once
// `kernelevo check`: every locked winner of this GPU still compiles, verifies and is not
// slower than recorded beyond a threshold, judged from several rounds of measurements with
// a confidence interval and a sign test, never from one sample. Stale entries (the source
// changed since they were measured) are re-measured; marked kernels without an entry for
// this GPU are reported as missing.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/lockfile.h"
#include "core/measurer.h"
#include "core/report.h"
#include "core/stats.h"

namespace kev {

struct CheckOptions {
  double threshold = 0.05;  // allowed slowdown against the recorded time
  double min_abs_us = 1.0;  // a slowdown smaller than this is never material
  int rounds = 10;          // measurement rounds per kernel (each contributes its median)
  double alpha = 0.05;      // sign test significance level
  stats::BootstrapOptions bootstrap;
};

// Judges measured round medians against a recorded time.
struct RecordedJudgement {
  KernelVerdict verdict = KernelVerdict::unsure;  // pass, slower, faster or unsure
  double median_us = 0.0;
  double ratio = 1.0;  // median / recorded
  stats::Interval ratio_ci;
  double p_value = 1.0;    // one-sided sign test in the direction of the verdict
  double threshold = 0.0;  // material relative change for this kernel
  std::string evidence;
};
// SLOWER needs the whole ratio interval above 1 + threshold and the sign test (rounds
// slower than recorded * (1 + threshold)) significant; FASTER the mirror image; otherwise
// PASS when the median is within the threshold, UNSURE when it is above it but not
// confidently so. The threshold is max(threshold, min_abs_us / recorded).
[[nodiscard]] RecordedJudgement judge_against_recorded(const std::vector<double>& round_medians_us,
                                                       double recorded_us,
                                                       const CheckOptions& options);

// One-sided exact sign test: P(X >= k) for X ~ Binomial(n, 1/2).
[[nodiscard]] double sign_test_p(std::size_t k, std::size_t n);

struct CheckInput {
  const Lockfile* lock = nullptr;
  // The marked kernels found in the project (may be empty in replay mode: then only the
  // lockfile's entries are checked and nothing can be reported missing).
  std::vector<const KernelSpec*> specs;
  GpuIdentity gpu;
  std::string root = ".";
  // Sources a build compiles from another text (current evolved variants): those are measured.
  CompiledSources compiled;
  // The current hash ("sha256:...") of a source path, when it can be read.
  std::function<std::optional<std::string>(const std::string& source)> source_hash;
  CheckOptions options;
};

// Measures every locked entry of `input.gpu` through `measurer` and judges it.
[[nodiscard]] Report run_check(const CheckInput& input, Measurer& measurer);

}  // namespace kev
