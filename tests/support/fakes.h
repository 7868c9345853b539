#pragma once
// Fakes shared by the tests: a Compiler and a Runner without a toolkit or a GPU, and the tune
// run's seams (core/tune_backend.h) for running the whole tune workflow in-process: a GPU
// backend whose kernels' times follow a formula, an in-memory lockfile and traces, and a
// console that keeps its lines.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/compiler.h"
#include "core/runner.h"
#include "core/tune_backend.h"

namespace kev::testing {

// Counts compiles; its "image" is the source text plus the defines, every kernel name is
// lowered to "lowered_NAME", and it reports the header named by the request's first include
// dir as a dependency. `fail`: every compile fails with the log "error".
class FakeCompiler final : public Compiler {
 public:
  CompileOutput compile(const CompileRequest& request) override {
    ++calls;
    CompileOutput out;
    out.ok = !fail;
    if (fail) {
      out.log = "error";
      return out;
    }
    out.image = "IMAGE:" + request.source_text;
    for (const auto& [name, value] : request.defines) out.image += ";" + name + "=" + value;
    for (const auto& k : request.kernel_names) out.lowered_names[k] = "lowered_" + k;
    if (!request.include_dirs.empty()) out.dependencies = {request.include_dirs[0] + "/dep.h"};
    out.log = "compiled";
    out.launch = launch;
    return out;
  }
  [[nodiscard]] std::string identity() const override { return "counting 1.0"; }
  std::atomic<int> calls{0};
  bool fail = false;
  ImageLaunch launch{};  // what the compiler decides of the launch (as Triton's does)
};

// A GPU that verifies everything and times each run at `time_of(request.params)` (the
// source's defaults when the params are empty: the baseline); nullopt fails verification.
class FakeRunner final : public Runner {
 public:
  explicit FakeRunner(int index = 0) { device.index = index; }
  DeviceInfo device{0,       "Fake GPU", "sm_90", 132,    50 << 20, 80LL << 30,
                    "580.0", "13.0",     3000.0,  4000.0, 0,        "no clock"};
  std::function<std::optional<double>(const ParamSet&)> time_of = [](const ParamSet&) {
    return 10.0;
  };
  std::atomic<int> runs{0};
  std::atomic<int> runs_batching_short_launches{0};  // TimingOptions::batch_below_us > 0
  std::mutex mutex;
  std::vector<std::string> images;  // each run's candidate image, in order

  Result<DeviceInfo> device_info() override { return device; }
  RunReport run(const RunRequest& request) override {
    ++runs;
    {
      std::lock_guard lock(mutex);
      images.push_back(request.candidate.image);
    }
    if (request.timing.batch_below_us > 0.0) ++runs_batching_short_launches;
    RunReport report;
    const auto t = time_of(request.params);
    report.outcome.disposition = t ? Disposition::passed : Disposition::incorrect;
    if (t) {
      report.outcome.time_us = *t;
      report.outcome.ci_low_us = *t * 0.99;
      report.outcome.ci_high_us = *t * 1.01;
      for (const auto& p : request.spec.problems) {
        ProblemResult r;
        r.problem = p.to_string();
        r.timed = true;
        r.time_us = *t;
        report.problems.push_back(r);
      }
    } else {
      report.outcome.detail = "max error 1.5";
    }
    return report;
  }
};

// A GPU backend without a GPU: GPUs `present` answer; a point's time is `time_of(params)`
// (nullopt: it fails verification). Thread-safe like the real one.
class FakeTuneBackend final : public TuneBackend {
 public:
  std::set<int> present{0};
  std::function<std::optional<double>(const ParamSet&)> time_of = [](const ParamSet&) {
    return 10.0;
  };
  // When set, a point's time on the problems the evaluator's spec tunes (a bucket's); the
  // baseline's is this with empty params.
  std::function<std::optional<double>(const ParamSet&, const std::vector<Problem>&)>
      time_on_problems;
  // When set, an evaluator's time `t` of `params` (empty: the baseline) as its spec's defines
  // make it (nullopt: it fails verification).
  std::function<std::optional<double>(double t, const ParamSet& params,
                                      const std::vector<std::string>& defines)>
      with_defines;
  std::vector<std::vector<Problem>> evaluated_problems;     // each evaluator's problems, in order
  std::vector<std::vector<std::string>> evaluated_defines;  // each evaluator's spec defines
  std::vector<KernelEvaluatorOptions> evaluator_options;    // each evaluator's options, in order
  // When set, what a passed point's compiled kernel takes of the GPU (spec objectives).
  std::function<KernelResources(const ParamSet&)> resources_of;
  double baseline_us = 200.0;  // the source defaults: slower than every point the tests search
  ParamSet defaults;           // what the baseline compiled with (none known: empty)
  bool baseline_passes = true;
  MemcheckVerdict memcheck_verdict{true, true, "0 errors"};

  std::mutex mutex;
  std::map<int, int> evaluations_by_gpu;  // evaluate() calls, by GPU index
  std::vector<ParamSet> remeasured;       // evaluate_params() calls
  // Every evaluator's calls in order, "<call> <spec defines> <params>": "measure_baseline
  // KERNELEVO_SIZE_cols=1024", "prefetch_params  X=2 | X=4" (the searches' evaluate and
  // prefetch calls left out).
  std::vector<std::string> calls;
  int memchecks = 0;

  Result<DeviceInfo> open_device(int index) override {
    if (!present.count(index)) return make_error("no device " + std::to_string(index));
    DeviceInfo d;
    d.index = index;
    d.name = "Fake GPU";
    d.arch = "sm_90";
    d.sms = 132;
    d.copy_gbps = 3000;
    d.read_gbps = 4000;
    d.cuda_version = "13.0";
    d.clock_source = "no clock";
    return d;
  }

  class Evaluator final : public KernelEvaluator {
   public:
    Evaluator(FakeTuneBackend& backend, const SearchSpace& space, int gpu,
              std::vector<Problem> problems = {}, std::vector<std::string> defines = {})
        : backend_(backend),
          space_(space),
          gpu_(gpu),
          problems_(std::move(problems)),
          defines_(std::move(defines)) {}
    Result<Outcome> measure_baseline() override {
      log("measure_baseline", {});
      if (backend_.time_on_problems && backend_.baseline_passes) return outcome({});
      Outcome o;
      o.disposition = backend_.baseline_passes ? Disposition::passed : Disposition::incorrect;
      if (backend_.baseline_passes) {
        o.time_us = backend_.baseline_us;
        o.ci_low_us = backend_.baseline_us * 0.99;
        o.ci_high_us = backend_.baseline_us * 1.01;
      }
      o.detail = backend_.baseline_passes ? "" : "max error 1.5";
      return o;
    }
    Outcome evaluate(const Point& p) override {
      {
        std::lock_guard lock(backend_.mutex);
        ++backend_.evaluations_by_gpu[gpu_];
      }
      return outcome(space_.to_params(p));
    }
    [[nodiscard]] ParamSet baseline_defaults() const override { return backend_.defaults; }
    [[nodiscard]] const SearchSpace& space() const { return space_; }
    [[nodiscard]] const RunReport& last_report() const override { return report_; }
    [[nodiscard]] const RunReport& baseline_report() const override { return report_; }
    Outcome evaluate_params(const ParamSet& params) override {
      {
        std::lock_guard lock(backend_.mutex);
        backend_.remeasured.push_back(params);
      }
      log("evaluate_params", {params});
      return outcome(params);
    }
    void prefetch_params(const std::vector<ParamSet>& upcoming) override {
      log("prefetch_params", upcoming);
    }

   private:
    void log(const std::string& call, const std::vector<ParamSet>& sets) {
      std::string line = call + " ";
      for (std::size_t i = 0; i < defines_.size(); ++i) line += (i ? "," : "") + defines_[i];
      for (std::size_t i = 0; i < sets.size(); ++i) {
        line += i ? " | " : " ";
        bool first = true;
        for (const auto& [k, v] : sets[i]) {
          line += (first ? "" : ",") + k + "=" + v.to_string();
          first = false;
        }
      }
      std::lock_guard lock(backend_.mutex);
      backend_.calls.push_back(line);
    }
    [[nodiscard]] Outcome outcome(const ParamSet& params) const {
      Outcome o;
      auto t = backend_.time_on_problems ? backend_.time_on_problems(params, problems_)
                                         : backend_.time_of(params);
      if (t && backend_.with_defines) t = backend_.with_defines(*t, params, defines_);
      o.disposition = t ? Disposition::passed : Disposition::incorrect;
      if (t) {
        o.time_us = *t;
        o.ci_low_us = *t * 0.99;
        o.ci_high_us = *t * 1.01;
        if (backend_.resources_of) o.resources = backend_.resources_of(params);
      }
      return o;
    }
    FakeTuneBackend& backend_;
    const SearchSpace& space_;
    int gpu_;
    std::vector<Problem> problems_;
    std::vector<std::string> defines_;
    RunReport report_;
  };

  std::unique_ptr<KernelEvaluator> evaluator(const KernelSpec& spec, const SearchSpace& space,
                                             int gpu,
                                             const KernelEvaluatorOptions& options) override {
    {
      std::lock_guard lock(mutex);
      evaluated_problems.push_back(spec.problems);
      evaluated_defines.push_back(spec.defines);
      evaluator_options.push_back(options);
    }
    return std::make_unique<Evaluator>(*this, space, gpu, spec.problems, spec.defines);
  }
  std::unique_ptr<KernelEvaluator> sibling(KernelEvaluator& first, int gpu) override {
    return std::make_unique<Evaluator>(*this, static_cast<Evaluator&>(first).space(), gpu);
  }
  MemcheckVerdict memcheck(KernelEvaluator&, const ParamSet&, int, const DeviceInfo&) override {
    std::lock_guard lock(mutex);
    ++memchecks;
    return memcheck_verdict;
  }
  [[nodiscard]] bool compiles_with_nvcc(const std::string&, DeviceCodeCompiler) const override {
    return false;
  }
  [[nodiscard]] TraceCompilers trace_compilers(const KernelSpec&, const std::optional<std::string>&,
                                               DeviceCodeCompiler) const override {
    return {};
  }
};

// The lockfile in memory (as a real one under its lock); no traces, no variants.
class FakeTuneStore final : public TuneStore {
 public:
  Lockfile lock;
  std::string hash = "sha256:0000";
  int writes = 0;
  std::map<std::size_t, int> bucket_records;  // trace records by bucket
  std::mutex mutex;

  [[nodiscard]] std::string lockfile_path() const override { return "kernelevo.lock"; }
  Result<Lockfile> read_lockfile() override {
    std::lock_guard guard(mutex);
    return lock;
  }
  Status update_lockfile(const std::function<Status(Lockfile&)>& change) override {
    std::lock_guard guard(mutex);
    ++writes;
    return change(lock);
  }
  Result<std::string> lock_source(const std::string& source) override { return source; }
  std::string source_hash(const std::string&) override { return hash; }
  std::optional<CompiledVariant> compiled_variant(const KernelSpec&, const Lockfile&) override {
    return std::nullopt;
  }
  class Trace final : public KernelTrace {
   public:
    explicit Trace(FakeTuneStore& store) : store_(store) {}
    std::vector<Evaluation> take_prior() override { return {}; }
    void record(const Evaluation&, const SearchSpace&) override {}
    [[nodiscard]] std::optional<Error> write_error() const override { return std::nullopt; }
    Result<std::vector<Evaluation>> take_bucket_prior(std::size_t, const SearchSpace&) override {
      return std::vector<Evaluation>{};
    }
    void record_bucket(const Evaluation&, const SearchSpace& space, std::size_t bucket) override {
      std::lock_guard guard(store_.mutex);
      ++store_.bucket_records[bucket];
      (void)space;
    }

   private:
    FakeTuneStore& store_;
  };
  Result<std::unique_ptr<KernelTrace>> open_trace(const KernelSpec&, const SearchSpace&,
                                                  const std::string&,
                                                  const TraceCompilers&) override {
    return std::unique_ptr<KernelTrace>(std::make_unique<Trace>(*this));
  }
};

// Keeps every line, as stderr would show it.
class FakeTuneConsole final : public TuneConsole {
 public:
  std::mutex mutex;
  std::vector<std::string> lines;

  void note(const std::string& line, const std::string& quoted) override {
    add("kernelevo: " + line + quoted);
  }
  void warn(const std::string& message) override { add("kernelevo: warning: " + message); }
  void error(const Error& error) override { add("kernelevo: error: " + error.message); }
  class Progress final : public TuneProgress {
   public:
    void evaluated(std::size_t, const Evaluation&, const Evaluation*) override {}
    void finish() override {}
  };
  std::unique_ptr<TuneProgress> progress(const std::string&,
                                         std::optional<std::uint64_t>) override {
    return std::make_unique<Progress>();
  }
  [[nodiscard]] bool has(const std::string& part) {
    std::lock_guard guard(mutex);
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }

 private:
  void add(std::string line) {
    std::lock_guard guard(mutex);
    lines.push_back(std::move(line));
  }
};

}  // namespace kev::testing
