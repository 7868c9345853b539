#include "cli/tune_wiring.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cli/command.h"
#include "cli/gate_common.h"
#include "cli/progress.h"
#include "cli/tune_trace.h"
#include "core/l2_choice.h"
#include "io/compile_settings_apply.h"
#include "io/console.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/lockfile_json.h"
#include "io/log_text.h"

namespace kev::cli {

namespace {

class FileTrace final : public KernelTrace {
 public:
  FileTrace(TraceSetup setup, std::string resume_path)
      : setup_(std::move(setup)), resume_path_(std::move(resume_path)) {}
  std::vector<Evaluation> take_prior() override { return std::move(setup_.prior); }
  void record(const Evaluation& e, const SearchSpace& space) override { setup_.record(e, space); }
  [[nodiscard]] std::optional<Error> write_error() const override { return setup_.write_error; }
  Result<std::vector<Evaluation>> take_bucket_prior(std::size_t bucket,
                                                    const SearchSpace& space) override {
    return setup_.bucket_prior(bucket, space, resume_path_);
  }
  void record_bucket(const Evaluation& e, const SearchSpace& space, std::size_t bucket) override {
    setup_.record(e, space, bucket);
  }

 private:
  TraceSetup setup_;
  std::string resume_path_;
};

class FileStore final : public TuneStore {
 public:
  FileStore(const TuneOptions& options, std::size_t kernels)
      : options_(options),
        kernels_(kernels),
        lock_path_(options.lockfile.empty() ? kLockfileName : options.lockfile) {}

  [[nodiscard]] std::string lockfile_path() const override { return lock_path_; }
  Result<Lockfile> read_lockfile() override { return read_lockfile_or_empty(lock_path_); }
  Status update_lockfile(const std::function<Status(Lockfile&)>& change) override {
    return kev::update_lockfile(lock_path_, change);
  }

  // The lockfile names sources relative to the project (the current directory): an absolute
  // path inside the project is made relative.
  Result<std::string> lock_source(const std::string& source) override {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path given(source);
    const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
    const fs::path relative = given.is_absolute()
                                  ? fs::weakly_canonical(given, ec).lexically_relative(cwd)
                                  : given.lexically_normal();
    // The lockfile reader's rule, so tune never writes an entry it would refuse.
    if (relative.is_absolute() || !is_project_path(relative.generic_string()))
      return make_error(
          source +
          ": a tuned source must lie inside the project (the current directory), with a "
          "plain path (letters, digits, /_.-+@), so the lockfile can name it; run "
          "kernelevo from the project's root");
    return relative.generic_string();
  }

  std::string source_hash(const std::string& source) override {
    auto text = read_regular_file(source, kMaxSourceBytes);
    return sha256_of(text ? *text : std::string());
  }

  std::optional<CompiledVariant> compiled_variant(const KernelSpec& spec,
                                                  const Lockfile& lock) override {
    const auto compiled = compiled_sources({&spec}, &lock, lock_path_);
    auto it = compiled.find(spec.source);
    if (it == compiled.end()) return std::nullopt;
    return CompiledVariant{it->second.text, it->second.label};
  }

  Result<std::unique_ptr<KernelTrace>> open_trace(const KernelSpec& spec, const SearchSpace& space,
                                                  const std::string& device_name,
                                                  const TraceCompilers& compilers) override {
    io::TraceHeader header;
    header.kernel = spec.id;
    header.device = device_name;
    header.dims = space.dims();
    header.strategy = options_.strategy;
    header.seed = options_.seed;
    header.problems = spec.problems;
    TimingOptions timing;  // the GPU backend's, but for --l2
    const L2Choice l2 = l2_choice(options_.l2);
    timing.dirty_l2 = l2.dirty_l2;
    timing.charge_writeback = l2.charge_writeback;
    header.timing = timing_method(timing);
    header.flush = kFlushRevision;
    header.compiler = compilers.used;
    if (spec.dispatch) {
      header.dispatch_by = spec.dispatch->by;
      header.buckets = spec.dispatch->buckets;
    }
    // Several kernels: one trace per kernel, FILE.jsonl becoming FILE.<id>.jsonl, for
    // --trace and --resume alike (a resumed multi-kernel run reads the files it wrote).
    TuneOptions trace_options = options_;
    if (kernels_ > 1) {
      trace_options.trace = per_kernel_trace(options_.trace, spec.id);
      trace_options.resume = per_kernel_trace(options_.resume, spec.id);
      std::error_code ec;
      if (!trace_options.resume.empty() && !std::filesystem::exists(trace_options.resume, ec)) {
        // A kernel the earlier run did not reach (or a new one) starts afresh, into the file
        // a later resume will look for.
        if (trace_options.trace.empty()) trace_options.trace = trace_options.resume;
        trace_options.resume.clear();
      }
    }
    auto trace = spec.dispatch ? setup_bucket_trace(trace_options, header, compilers.unsaid)
                               : setup_trace(trace_options, header, space, compilers.unsaid);
    if (!trace) return trace.error();
    return std::unique_ptr<KernelTrace>(
        std::make_unique<FileTrace>(std::move(*trace), trace_options.resume));
  }

 private:
  const TuneOptions& options_;
  std::size_t kernels_;
  std::string lock_path_;
};

class ProgressLine final : public TuneProgress {
 public:
  ProgressLine(std::string label, std::optional<std::uint64_t> total)
      : progress_(std::move(label), total) {}
  void evaluated(std::size_t index, const Evaluation& e, const Evaluation* best) override {
    progress_.evaluated(index, e, best);
  }
  void finish() override { progress_.finish(); }

 private:
  Progress progress_;
};

class StderrConsole final : public TuneConsole {
 public:
  void note(const std::string& line, const std::string& quoted) override {
    io::Console::standard_error().print("kernelevo: " + line +
                                        (quoted.empty() ? "" : io::one_line(quoted)));
  }
  void warn(const std::string& message) override { cli::warn(message); }
  void error(const Error& error) override { report(error); }
  std::unique_ptr<TuneProgress> progress(const std::string& label,
                                         std::optional<std::uint64_t> total) override {
    return std::make_unique<ProgressLine>(label, total);
  }
};

}  // namespace

std::unique_ptr<TuneStore> make_tune_store(const TuneOptions& options, std::size_t kernels) {
  return std::make_unique<FileStore>(options, kernels);
}

std::unique_ptr<TuneConsole> make_tune_console() { return std::make_unique<StderrConsole>(); }

Result<bool> apply_build_settings(const std::string& option, const TuneBackend& backend,
                                  std::vector<KernelSpec>& specs,
                                  const std::vector<const KernelSpec*>& selected,
                                  DeviceCodeCompiler device_code) {
  std::string where = option;
  if (where.empty()) {
    const char* env = std::getenv("KERNELEVO_COMPILE_SETTINGS");
    if (env == nullptr || *env == '\0') return false;
    where = env;
  }
  auto all = load_compile_settings(where);
  if (!all) return all.error();
  for (auto& spec : specs) {
    if (!selected.empty() && std::find(selected.begin(), selected.end(), &spec) == selected.end())
      continue;
    const CompileSettings* settings = settings_for_source(*all, spec.source);
    if (settings == nullptr) {
      warn(spec.id + ": " + where + " has no compile settings for " + spec.source +
           "; compiling it with the spec's settings only");
      continue;
    }
    const auto text = read_regular_file(spec.source, kMaxSourceBytes);
    const auto compiler = text && backend.compiles_with_nvcc(*text, device_code)
                              ? SettingsCompiler::nvcc
                              : SettingsCompiler::nvrtc;
    for (const auto& note : apply_compile_settings(spec, *settings, compiler))
      warn(spec.id + ": " + note);
  }
  return true;
}

}  // namespace kev::cli
