#pragma once
// The seams of a tune run (core/tune_run.h): the GPU side (TuneBackend: measure devices,
// compile, evaluate), the files (TuneStore: lockfile, traces, sources) and the console
// (TuneConsole). The CUDA backend is cuda/gpu_backend.h; tests use tests/support/fakes.h.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler.h"
#include "core/device.h"
#include "core/evaluator.h"
#include "core/lockfile.h"
#include "core/result.h"
#include "core/runner.h"
#include "core/spec.h"
#include "core/tuner.h"

namespace kev {

// One kernel's evaluator on one device: compiles, verifies and times its points.
class KernelEvaluator : public Evaluator {
 public:
  // Reads the source, compiles the baseline and the reference, measures the baseline. An
  // error when the source cannot be read or the reference does not compile; a baseline that
  // fails verification is an Outcome (not passed).
  virtual Result<Outcome> measure_baseline() = 0;
  // The last run's per-problem results, and the baseline's.
  [[nodiscard]] virtual const RunReport& last_report() const = 0;
  [[nodiscard]] virtual const RunReport& baseline_report() const = 0;
  // Measures a parameter set (a locked winner re-measured in this run).
  virtual Outcome evaluate_params(const ParamSet& params) = 0;
  // Hint: these parameter sets will soon go to evaluate_params (lets a backend compile ahead,
  // in parallel, even before measure_baseline).
  virtual void prefetch_params(const std::vector<ParamSet>& upcoming) { (void)upcoming; }
  // The source defaults the baseline compiled with, every parameter's (read by
  // measure_baseline; empty before it, or when they are not known).
  [[nodiscard]] virtual ParamSet baseline_defaults() const { return {}; }
};

struct KernelEvaluatorOptions {
  std::string arch;  // the device's
  std::uint64_t seed = 1;
  std::optional<std::string> source_text;  // compiled instead of the spec's source file
  bool dirty_l2 = false;                   // TimingOptions::dirty_l2
  bool charge_writeback = false;           // TimingOptions::charge_writeback
  double timeout_seconds = 0.0;  // TimingOptions::timeout_seconds; 0: the runner's default
  DeviceCodeCompiler device_code = DeviceCodeCompiler::nvcc;  // tune --compiler
};

// Which compiler makes a kernel's timed code, as its trace records it (io::TraceHeader's
// compiler): `used` by this run, and `unsaid`, what kernelevo chose before traces said (for
// an older trace that does not say). Empty: not a CUDA C++ source (Triton's); not checked.
struct TraceCompilers {
  std::string used;
  std::string unsaid;
};

struct MemcheckVerdict {
  bool ran = false;     // false: the sanitizer could not run
  bool clean = false;   // ran, verified, no error
  std::string summary;  // "0 errors", the first errors, or why it did not run
};

class TuneBackend {
 public:
  virtual ~TuneBackend() = default;
  // Starts GPU `index`'s worker and measures the device; an error when there is none.
  virtual Result<DeviceInfo> open_device(int index) = 0;
  // `spec`'s evaluator on the opened GPU `device`; `spec` and `space` must outlive it.
  virtual std::unique_ptr<KernelEvaluator> evaluator(const KernelSpec& spec,
                                                     const SearchSpace& space, int device,
                                                     const KernelEvaluatorOptions& options) = 0;
  // The same kernel on another opened GPU, sharing `first`'s compiles, source and
  // reference (a search shared by several GPUs). Call after first's baseline.
  virtual std::unique_ptr<KernelEvaluator> sibling(KernelEvaluator& first, int device) = 0;
  // `params` of `evaluator`'s kernel once more under a memory checker on GPU `device`.
  virtual MemcheckVerdict memcheck(KernelEvaluator& evaluator, const ParamSet& params, int device,
                                   const DeviceInfo& info) = 0;
  // Whether a source with this text is compiled by nvcc (always, but for device-only code
  // with DeviceCodeCompiler::nvrtc) or by NVRTC.
  [[nodiscard]] virtual bool compiles_with_nvcc(const std::string& source_text,
                                                DeviceCodeCompiler device_code) const = 0;
  // The compilers `spec`'s trace records (`source_text`: compiled instead of its file).
  [[nodiscard]] virtual TraceCompilers trace_compilers(
      const KernelSpec& spec, const std::optional<std::string>& source_text,
      DeviceCodeCompiler device_code) const = 0;
};

// One kernel's trace: the evaluations a resumed run starts from, and where new ones go.
class KernelTrace {
 public:
  virtual ~KernelTrace() = default;
  [[nodiscard]] virtual std::vector<Evaluation> take_prior() = 0;
  virtual void record(const Evaluation& e, const SearchSpace& space) = 0;
  // The first failed write: it stops the run.
  [[nodiscard]] virtual std::optional<Error> write_error() const = 0;
  // A kernel with buckets keeps one trace with one search per bucket: bucket `bucket`'s
  // prior evaluations (points of its `space`), and its records, tagged with the bucket.
  virtual Result<std::vector<Evaluation>> take_bucket_prior(std::size_t bucket,
                                                            const SearchSpace& space) = 0;
  virtual void record_bucket(const Evaluation& e, const SearchSpace& space, std::size_t bucket) = 0;
};

// What the build compiles in place of a spec's source file (a current evolved variant).
struct CompiledVariant {
  std::string text;
  std::string label;  // "the evolved variant g1c2 (...)"
};

// The files of a tune run. Called from several threads (one per GPU) at once.
class TuneStore {
 public:
  virtual ~TuneStore() = default;
  [[nodiscard]] virtual std::string lockfile_path() const = 0;
  virtual Result<Lockfile> read_lockfile() = 0;  // absent: empty
  // Under the lockfile's lock: re-read, change, write atomically.
  virtual Status update_lockfile(const std::function<Status(Lockfile&)>& change) = 0;
  // The source's path as the lockfile names it (relative to the project), or why it cannot.
  virtual Result<std::string> lock_source(const std::string& source) = 0;
  // "sha256:<hex>" of the source file as it is now (of nothing when unreadable).
  virtual std::string source_hash(const std::string& source) = 0;
  virtual std::optional<CompiledVariant> compiled_variant(const KernelSpec& spec,
                                                          const Lockfile& lock) = 0;
  // `spec` with `dispatch`: the trace of every bucket's search (`space` then holds the
  // points of all buckets).
  virtual Result<std::unique_ptr<KernelTrace>> open_trace(const KernelSpec& spec,
                                                          const SearchSpace& space,
                                                          const std::string& device_name,
                                                          const TraceCompilers& compilers) = 0;
};

// One kernel's progress display.
class TuneProgress {
 public:
  virtual ~TuneProgress() = default;
  // Evaluation `index` (from 0) was `e`; the best so far `best`.
  virtual void evaluated(std::size_t index, const Evaluation& e, const Evaluation* best) = 0;
  virtual void finish() = 0;
};

// Human output on stderr. Called from several threads at once: lines must stay whole.
class TuneConsole {
 public:
  virtual ~TuneConsole() = default;
  // "kernelevo: LINE", then `quoted` (text from outside: a compiler log...) kept on one line.
  virtual void note(const std::string& line, const std::string& quoted = {}) = 0;
  virtual void warn(const std::string& message) = 0;  // "kernelevo: warning: MESSAGE"
  virtual void error(const Error& error) = 0;         // "kernelevo: ...error: MESSAGE"
  virtual std::unique_ptr<TuneProgress> progress(const std::string& label,
                                                 std::optional<std::uint64_t> total) = 0;
};

}  // namespace kev
