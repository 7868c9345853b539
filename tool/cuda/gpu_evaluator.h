#pragma once
// The Evaluator on a GPU: parameter sets become -D defines, compiled ahead on a thread pool
// (prefetch), then verified and timed by a Runner (a worker process). The baseline (the
// source compiled with no parameter set) is measured first; the reference kernel is
// compiled the same way.
#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/compiler.h"
#include "core/evaluator.h"
#include "core/runner.h"
#include "core/tune_backend.h"
#include "cuda/compile_pool.h"

namespace kev::cuda {

struct GpuEvaluatorOptions {
  std::string arch = "sm_90";  // the device's, unless the spec names one (sm_90a)
  TimingOptions timing;
  unsigned compile_threads = 0;  // 0: one per core
  // Set: compiled instead of the spec's source file (an evolved variant a build compiles).
  std::optional<std::string> source_text;
};

class GpuEvaluator final : public KernelEvaluator {
 public:
  // `compiler` compiles every request: an AutoCompiler (cuda/compilers.h) sends each source
  // to NVRTC or nvcc. It must outlive this object, as must `spec`, `space` and `runner`.
  GpuEvaluator(const KernelSpec& spec, const SearchSpace& space, Compiler& compiler, Runner& runner,
               GpuEvaluatorOptions options);
  ~GpuEvaluator() override;

  // The same kernel on another GPU (its own runner), for a search shared by several GPUs:
  // shares this evaluator's compiles (pools and compiles ahead, so a point prefetched by one
  // is not compiled again by the other), source, defaults and reference. Call after
  // measure_baseline(); the sibling measures no baseline of its own.
  [[nodiscard]] std::unique_ptr<GpuEvaluator> sibling(Runner& runner) const;

  // Reads the source, compiles the baseline and the reference, measures the baseline.
  // An error when the source cannot be read or the reference does not compile; a baseline
  // that fails verification is an Outcome (not passed), reported by the caller.
  Result<Outcome> measure_baseline() override;

  Outcome evaluate(const Point& p) override;
  // Both compile ahead on the pool; before measure_baseline they read the source first.
  void prefetch(const std::vector<Point>& upcoming) override;
  void prefetch_params(const std::vector<ParamSet>& upcoming) override;
  void set_incumbent_us(double best_us) override;

  // The last run's per-problem results (GB/s, fraction of the copy ceiling).
  [[nodiscard]] const RunReport& last_report() const override { return last_report_; }
  [[nodiscard]] const RunReport& baseline_report() const override { return baseline_report_; }
  [[nodiscard]] const ParamSet& defaults() const { return defaults_; }
  [[nodiscard]] ParamSet baseline_defaults() const override { return defaults_; }
  // Measures a parameter set (a locked winner re-measured in this run).
  Outcome evaluate_params(const ParamSet& params) override;
  // Runs a parameter set once more on another runner with other timing (the winner under a
  // sanitizer); last_report() is left alone.
  RunReport run_params_on(Runner& runner, const ParamSet& params, const TimingOptions& timing,
                          bool time_it);
  [[nodiscard]] double compile_seconds() const { return compile_seconds_; }

 private:
  // The compile side, shared by siblings; pending is declared first so the pool (which
  // finishes or cancels its jobs) goes before it.
  struct Compiles {
    std::mutex mutex;
    std::map<std::string, std::shared_future<CompileOutput>> pending;  // by space key
    // prefetch_params's, by the request's defines, until evaluate_params takes them
    std::map<std::string, std::shared_future<CompileOutput>> pending_params;
    std::set<std::string> taken;  // evaluated or being evaluated: never prefetched again
    std::unique_ptr<CompilePool> pool;
  };

  GpuEvaluator(const GpuEvaluator& first, Runner& runner);  // sibling()'s
  Status load_source();                                     // source_text_ and defaults_, once
  // A parameter set's compile: prefetch_params's when there is one, else a new one.
  std::shared_future<CompileOutput> params_compile(const ParamSet& params);
  CompileRequest request_for(const ParamSet& params, bool with_reference) const;
  std::shared_future<CompileOutput> compile_async(const ParamSet& params);
  Outcome run(const ParamSet& params, const CompileOutput& compiled);
  RunRequest run_request(const ParamSet& params, const CompileOutput& compiled) const;

  const KernelSpec& spec_;
  const SearchSpace& space_;
  Compiler& compiler_;
  Runner& runner_;
  GpuEvaluatorOptions options_;
  std::shared_ptr<Compiles> compiles_;
  bool source_loaded_ = false;
  std::string source_text_;
  ParamSet defaults_;
  KernelImage reference_;
  // Set by the tuner's thread while another GPU's thread may be reading it.
  std::atomic<double> incumbent_us_{0.0};
  RunReport last_report_;
  RunReport baseline_report_;
  double compile_seconds_ = 0.0;
};

}  // namespace kev::cuda
