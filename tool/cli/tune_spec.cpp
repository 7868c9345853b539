// `kernelevo tune PATH...` on a GPU: load the marked kernels, measure each one's baseline,
// search its space through the worker process, lock the winner, print the table.
#include "cli/tune_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/gate_common.h"
#include "cli/progress.h"
#include "cli/tune_trace.h"
#include "core/lockfile.h"
#include "core/runner.h"
#include "core/shard.h"
#include "core/spec_space.h"
#include "core/strategy.h"
#include "io/compile_settings_apply.h"
#include "io/hash.h"
#include "io/json_value.h"
#include "io/lockfile_json.h"
#include "io/log_text.h"
#include "io/spec_loader.h"

#if KERNELEVO_HAVE_CUDA
#include "cuda/compile_cache.h"
#include "cuda/files.h"
#include "cuda/gpu_evaluator.h"
#include "cuda/memcheck.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/source_kind.h"
#include "cuda/worker_client.h"
#endif

namespace kev::cli {

namespace {

using json = nlohmann::ordered_json;

struct ProblemRow {
  std::string problem;
  std::optional<double> time_us;
  std::optional<double> gbps;
  std::optional<double> copy_fraction;
};

struct KernelRow {
  std::string id;
  std::optional<double> baseline_us;
  std::optional<double> winner_us;
  std::optional<ParamSet> winner;
  std::vector<ProblemRow> problems;  // the winner's
  std::uint64_t evaluations = 0;
  std::map<Disposition, std::uint64_t> counts;
  double elapsed_s = 0.0;
  std::string lock_action;      // "locked", "kept (...)", ...
  std::string failure;          // why there is no winner
  std::string memcheck;         // --memcheck: the sanitizer's verdict on the winner
  std::uint64_t throttled = 0;  // runs during which the worker saw the GPU throttle
  std::string throttle;         // the last such warning
  std::vector<int> gpus;        // the GPUs it was tuned on (several share one search)
  int exit_code = 0;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// "0,1": GPU indices as --gpus takes them.
std::string gpu_list(const std::vector<int>& indices) {
  std::string s;
  for (int g : indices) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

// One GPU of the run: its worker process and what the worker measured about it.
struct TuneGpu {
  int index = 0;
  std::unique_ptr<Runner> worker;
  DeviceInfo info;
};

void print_text(const std::vector<TuneGpu>& gpus, const std::vector<KernelRow>& rows) {
  for (const auto& g : gpus) {
    const DeviceInfo& dev = g.info;
    std::printf("device%s: %s (%s, %d SMs), copy %.0f GB/s, read %.0f GB/s\n",
                gpus.size() > 1 ? (" " + std::to_string(g.index)).c_str() : "", dev.name.c_str(),
                dev.arch.c_str(), dev.sms, dev.copy_gbps, dev.read_gbps);
  }
  std::printf("%-20s %12s %12s %8s %8s %7s %6s %7s  %s\n", "kernel", "baseline", "winner",
              "speedup", "GB/s", "%copy", "evals", "evals/s", "outcomes");
  for (const auto& r : rows) {
    std::string counts;
    for (const auto& [d, n] : r.counts)
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(d);
    const ProblemRow* first = r.problems.empty() ? nullptr : &r.problems.front();
    std::printf(
        "%-20s %12s %12s %8s %8s %7s %6llu %7s  %s\n", r.id.c_str(),
        r.baseline_us ? format_time_us(*r.baseline_us).c_str() : "-",
        r.winner_us ? format_time_us(*r.winner_us).c_str() : "-",
        r.baseline_us && r.winner_us ? fmt("%.2fx", *r.baseline_us / *r.winner_us).c_str() : "-",
        first && first->gbps ? fmt("%.0f", *first->gbps).c_str() : "-",
        first && first->copy_fraction ? fmt("%.1f%%", 100.0 * *first->copy_fraction).c_str() : "-",
        static_cast<unsigned long long>(r.evaluations),
        r.elapsed_s > 0 ? fmt("%.1f", static_cast<double>(r.evaluations) / r.elapsed_s).c_str()
                        : "-",
        counts.c_str());
    if (r.winner)
      std::printf("  winner: %s (%s)\n", params_text(*r.winner).c_str(), r.lock_action.c_str());
    if (gpus.size() > 1)
      std::printf("  tuned on GPU%s %s\n", r.gpus.size() > 1 ? "s" : "", gpu_list(r.gpus).c_str());
    if (!r.memcheck.empty()) std::printf("  memcheck: %s\n", r.memcheck.c_str());
    if (r.throttled > 0)
      std::printf("  warning: %llu runs saw the GPU throttle (last: %s); times may be slow\n",
                  static_cast<unsigned long long>(r.throttled), r.throttle.c_str());
    for (std::size_t i = 0; r.problems.size() > 1 && i < r.problems.size(); ++i) {
      const auto& p = r.problems[i];
      std::printf("  %-30s %12s %8s GB/s %7s of copy\n", p.problem.c_str(),
                  p.time_us ? format_time_us(*p.time_us).c_str() : "-",
                  p.gbps ? fmt("%.0f", *p.gbps).c_str() : "-",
                  p.copy_fraction ? fmt("%.1f%%", 100.0 * *p.copy_fraction).c_str() : "-");
    }
    if (!r.failure.empty()) std::printf("  no winner: %s\n", r.failure.c_str());
  }
}

json device_json(const DeviceInfo& dev) {
  return {{"name", dev.name},
          {"arch", dev.arch},
          {"sms", dev.sms},
          {"l2_bytes", dev.l2_bytes},
          {"memory_bytes", dev.memory_bytes},
          {"driver_version", dev.driver_version},
          {"cuda_version", dev.cuda_version},
          {"copy_gbps", dev.copy_gbps},
          {"read_gbps", dev.read_gbps}};
}

void print_json(const std::vector<TuneGpu>& gpus, const TuneOptions& options,
                const std::vector<KernelRow>& rows) {
  json j;
  j["device"] = device_json(gpus.front().info);
  json devices = json::array();
  for (const auto& g : gpus) {
    json d = device_json(g.info);
    d["index"] = g.index;
    devices.push_back(std::move(d));
  }
  j["devices"] = devices;
  j["strategy"] = options.strategy;
  j["seed"] = options.seed;
  json kernels = json::array();
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& r : rows) {
    json k;
    k["id"] = r.id;
    k["baseline_us"] = opt(r.baseline_us);
    k["winner_us"] = opt(r.winner_us);
    k["speedup"] =
        r.baseline_us && r.winner_us ? json(*r.baseline_us / *r.winner_us) : json(nullptr);
    json params = json::object();
    if (r.winner)
      for (const auto& [name, v] : *r.winner) params[name] = io::value_to_json<json>(v);
    k["winner"] = r.winner ? params : json(nullptr);
    json problems = json::array();
    for (const auto& p : r.problems)
      problems.push_back({{"problem", p.problem},
                          {"time_us", opt(p.time_us)},
                          {"gbps", opt(p.gbps)},
                          {"copy_fraction", opt(p.copy_fraction)}});
    k["problems"] = problems;
    k["evaluations"] = r.evaluations;
    k["elapsed_s"] = r.elapsed_s;
    k["evaluations_per_s"] =
        r.elapsed_s > 0 ? json(static_cast<double>(r.evaluations) / r.elapsed_s) : json(nullptr);
    json counts = json::object();
    for (const auto& [d, n] : r.counts) counts[to_string(d)] = n;
    k["counts"] = counts;
    k["lock"] = r.lock_action;
    k["gpu"] = r.gpus.empty() ? json(nullptr) : json(r.gpus.front());
    k["gpus"] = r.gpus;
    if (!r.memcheck.empty()) k["memcheck"] = r.memcheck;
    k["throttled_runs"] = r.throttled;
    if (!r.throttle.empty()) k["throttle"] = r.throttle;
    if (!r.failure.empty()) k["failure"] = r.failure;
    kernels.push_back(std::move(k));
  }
  j["kernels"] = kernels;
  std::cout << j.dump(2) << '\n';
}

// The specs of `selected` in `shard`, sorted by id.
std::vector<const KernelSpec*> shard_of(const std::vector<const KernelSpec*>& selected,
                                        const Shard& shard) {
  std::vector<std::string> ids;
  for (const auto* s : selected) ids.push_back(s->id);
  std::vector<const KernelSpec*> mine;
  for (const auto& id : shard_ids(std::move(ids), shard))
    for (const auto* s : selected)
      if (s->id == id) mine.push_back(s);
  return mine;
}

std::vector<ProblemRow> problem_rows(const RunReport& report) {
  std::vector<ProblemRow> rows;
  for (const auto& p : report.problems)
    if (p.timed) rows.push_back({p.problem, p.time_us, p.gbps, p.copy_fraction});
  return rows;
}

#if KERNELEVO_HAVE_CUDA
// --compile-settings, else KERNELEVO_COMPILE_SETTINGS (set by the build's kernelevo-tune
// target): each selected source found there compiles with the build's settings.
Result<bool> apply_build_settings(const TuneOptions& options, std::vector<KernelSpec>& specs,
                                  const std::vector<const KernelSpec*>& selected) {
  std::string where = options.compile_settings;
  if (where.empty()) {
    const char* env = std::getenv("KERNELEVO_COMPILE_SETTINGS");
    if (env == nullptr || *env == '\0') return false;
    where = env;
  }
  auto all = load_compile_settings(where);
  if (!all) return all.error();
  for (auto& spec : specs) {
    if (std::find(selected.begin(), selected.end(), &spec) == selected.end()) continue;
    const CompileSettings* settings = settings_for_source(*all, spec.source);
    if (settings == nullptr) {
      warn(spec.id + ": " + where + " has no compile settings for " + spec.source +
           "; compiling it with the spec's settings only");
      continue;
    }
    const auto text = cuda::read_whole_file(spec.source);
    const auto compiler =
        text && cuda::holds_host_code(*text) ? SettingsCompiler::nvcc : SettingsCompiler::nvrtc;
    for (const auto& note : apply_compile_settings(spec, *settings, compiler))
      warn(spec.id + ": " + note);
  }
  return true;
}

// The lockfile names sources relative to the project (the current directory): an absolute
// path inside the project is made relative.
Result<std::string> lock_source_path(const std::string& source) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path given(source);
  const fs::path cwd = fs::weakly_canonical(fs::current_path(ec), ec);
  const fs::path relative = given.is_absolute()
                                ? fs::weakly_canonical(given, ec).lexically_relative(cwd)
                                : given.lexically_normal();
  // The same rule the lockfile's reader applies, so tune never writes an entry it would refuse.
  if (relative.is_absolute() || !is_project_path(relative.generic_string()))
    return make_error(
        source +
        ": a tuned source must lie inside the project (the current directory), with a "
        "plain path (letters, digits, /_.-+@), so the lockfile can name it; run "
        "kernelevo from the project's root");
  return relative.generic_string();
}

// What every kernel of one `tune` run shares.
struct TuneRun {
  const TuneOptions& options;
  TuneBudget budget;
  std::size_t kernels = 0;  // in this run (a trace per kernel when several)
  std::string lock_path;
  Compiler& nvrtc;
  Compiler& nvcc;
};

// Tunes `spec` on `gpus` (the first measures the baseline; with several, each evaluates the
// next proposal of one shared search): baseline, search, optional memcheck of the winner,
// lockfile. An error stops the whole run (a trace or the lockfile cannot be written); a
// kernel that cannot be tuned is a row with a failure.
Result<KernelRow> tune_kernel(const KernelSpec& spec, const std::vector<TuneGpu*>& gpus,
                              const TuneRun& run) {
  const TuneOptions& options = run.options;
  TuneGpu& gpu = *gpus.front();
  const DeviceInfo& dev = gpu.info;
  const auto lock_source = lock_source_path(spec.source);
  if (!lock_source) return lock_source.error();
  KernelRow row;
  row.id = spec.id;
  for (const TuneGpu* g : gpus) row.gpus.push_back(g->index);
  SpecSpace space(spec, spec.problems);
  auto strategy = make_strategy(options.strategy, space, options.seed);
  if (!strategy) return strategy.error();
  cuda::GpuEvaluatorOptions eo;
  eo.arch = dev.arch;
  eo.timing.seed = options.seed;
  // A current evolved variant is what the build compiles, so it is what is tuned.
  if (auto lock = read_lockfile_or_empty(run.lock_path); lock) {
    const auto compiled = compiled_sources({&spec}, &*lock, run.lock_path);
    if (auto it = compiled.find(spec.source); it != compiled.end()) {
      eo.source_text = it->second.text;
      std::cerr << "kernelevo: " << spec.id << ": tuning " << it->second.label
                << " (what the build compiles)\n";
    }
  }
  cuda::GpuEvaluator evaluator(spec, space, run.nvrtc, run.nvcc, *gpu.worker, eo);
  const SpaceCount configurations = space.count();
  std::cerr << "kernelevo: " << spec.id << ": " << to_string(configurations)
            << " configurations; measuring the baseline"
            << (run.options.gpus.empty() ? "" : " on GPU " + std::to_string(gpu.index)) << "\n";
  auto baseline = evaluator.measure_baseline();
  if (!baseline) {
    row.exit_code = report(baseline.error());
    row.failure = baseline.error().message;
    return row;
  }
  if (!baseline->passed()) {
    row.failure = std::string("the baseline (source defaults) is ") +
                  to_string(baseline->disposition) + ": " + baseline->detail;
    warn(spec.where.to_string() + ": " + spec.id + ": " + row.failure);
    row.exit_code = static_cast<int>(ExitCode::failure);
    return row;
  }
  row.baseline_us = baseline->time_us;
  // The other GPUs share the search: their evaluators share the compiles and the reference.
  std::vector<std::unique_ptr<cuda::GpuEvaluator>> siblings;
  std::vector<cuda::GpuEvaluator*> evaluators{&evaluator};
  for (std::size_t g = 1; g < gpus.size(); ++g) {
    siblings.push_back(evaluator.sibling(*gpus[g]->worker));
    evaluators.push_back(siblings.back().get());
  }
  if (gpus.size() > 1)
    std::cerr << "kernelevo: " << spec.id << ": one search on GPUs " << gpu_list(row.gpus)
              << ", each evaluating the next configuration\n";

  io::TraceHeader header;
  header.kernel = spec.id;
  header.device = dev.name;
  header.dims = space.dims();
  header.strategy = options.strategy;
  header.seed = options.seed;
  header.problems = spec.problems;
  // Several kernels: one trace per kernel, FILE.jsonl becoming FILE.<id>.jsonl, for --trace
  // and --resume alike (a resumed multi-kernel run reads the files it wrote).
  TuneOptions trace_options = options;
  if (run.kernels > 1) {
    trace_options.trace = per_kernel_trace(options.trace, spec.id);
    trace_options.resume = per_kernel_trace(options.resume, spec.id);
    std::error_code ec;
    if (!trace_options.resume.empty() && !std::filesystem::exists(trace_options.resume, ec)) {
      // A kernel the earlier run did not reach (or a new one) starts afresh, into the file
      // a later resume will look for.
      if (trace_options.trace.empty()) trace_options.trace = trace_options.resume;
      trace_options.resume.clear();
    }
  }
  auto trace = setup_trace(trace_options, header, space);
  if (!trace) return trace.error();

  std::map<std::string, std::vector<ProblemRow>> problems_by_key;
  std::optional<std::uint64_t> expected = run.budget.evaluations;
  if (!expected && configurations.exact) expected = configurations.value;
  Progress progress("tune " + spec.id, expected);
  TuneRequest request;
  request.space = &space;
  request.strategy = strategy->get();
  request.evaluator = &evaluator;
  request.more_evaluators.assign(evaluators.begin() + 1, evaluators.end());
  request.budget = run.budget;
  request.prior = std::move(trace->prior);
  request.lookahead = 16;
  auto note_throttle = [&](const RunReport& report) {
    if (report.warnings.empty()) return;
    if (row.throttled++ == 0)  // once per kernel on stderr; counted in the table
      warn(spec.id + ": " + report.warnings + "; the times measured while it lasts are slow");
    row.throttle = report.warnings;
  };
  note_throttle(evaluator.baseline_report());
  request.observer = [&](const Evaluation& e, std::size_t index, const Evaluation* best) {
    const RunReport& report = evaluators[e.worker]->last_report();
    note_throttle(report);
    if (e.outcome.passed()) problems_by_key[space.key(e.point)] = problem_rows(report);
    if (!e.outcome.passed() && e.outcome.disposition != Disposition::compile_failed)
      std::cerr << "kernelevo: " << spec.id << ": " << space.key(e.point) << ": "
                << to_string(e.outcome.disposition) << ": "
                << io::one_line(e.outcome.detail.substr(0, 300)) << '\n';
    trace->record(e, space);
    progress.evaluated(index, e, best);
  };
  const TuneResult result = run_tuner(std::move(request));
  progress.finish();
  if (trace->write_error) return *trace->write_error;
  row.evaluations = result.evaluations;
  row.counts = result.counts;
  row.elapsed_s = result.elapsed_s;
  if (!result.best) {
    row.failure = "no configuration passed";
    row.exit_code = static_cast<int>(ExitCode::failure);
    return row;
  }
  const ParamSet winner = space.to_params(result.best->point);
  row.winner = winner;
  row.winner_us = result.best->outcome.time_us;
  if (auto it = problems_by_key.find(space.key(result.best->point)); it != problems_by_key.end())
    row.problems = it->second;

  if (options.memcheck) {
    std::cerr << "kernelevo: " << spec.id
              << ": running the winner under compute-sanitizer memcheck\n";
    const auto check = cuda::memcheck_params(evaluator, winner, gpu.index, dev);
    row.memcheck = check.summary;
    if (!check.clean) {
      row.failure = check.ran ? "the winner fails memcheck: " + check.summary
                              : "--memcheck could not run: " + check.summary;
      row.exit_code = static_cast<int>(check.ran ? ExitCode::failure : ExitCode::environment);
      row.lock_action = "not locked";
      return row;
    }
  }

  // The lockfile: a locked winner is re-measured now and replaced only by a challenger
  // that is faster with confidence.
  auto text = cuda::read_whole_file(spec.source);
  const std::string hash = sha256_of(text.value_or(""));
  auto current = read_lockfile_or_empty(run.lock_path);
  if (!current) return current.error();
  const LockEntry* locked = nullptr;
  const std::string arch = lock_arch(&spec, dev.arch);
  if (auto k = current->kernels.find(spec.id);
      k != current->kernels.end() && k->second.source_hash == hash)
    if (auto a = k->second.targets.find(arch); a != k->second.targets.end())
      if (auto d = a->second.find(dev.name); d != a->second.end()) locked = &d->second;
  bool replace = true;
  row.lock_action = "locked in " + run.lock_path;
  if (locked && locked->params == winner) {
    replace = false;
    row.lock_action = "already locked";
  } else if (locked) {
    const Outcome again = evaluator.evaluate_params(locked->params);
    const auto m_locked = measured(again);
    const auto m_new = measured(result.best->outcome);
    if (m_locked && m_new && !should_replace(*m_locked, *m_new)) {
      replace = false;
      row.lock_action = "kept the locked winner (" + params_text(locked->params) + ", " +
                        format_time_us(m_locked->median_us) + " now): not faster with confidence";
    }
  }
  if (replace) {
    LockEntry entry;
    entry.params = winner;
    entry.time_us = row.winner_us;
    entry.baseline_us = row.baseline_us;
    entry.tuned_with =
        std::string("kernelevo ") + KERNELEVO_VERSION + ", CUDA " + dev.cuda_version +
        (dev.driver_version.empty() ? "" : ", driver " + dev.driver_version) + ", strategy " +
        options.strategy + ", " + std::to_string(result.evaluations) + " evaluations" +
        (options.memcheck ? ", memcheck clean" : "");
    auto st = update_lockfile(run.lock_path, [&](Lockfile& lock) -> Status {
      set_entry(lock, spec.id, *lock_source, hash, arch, dev.name, entry);
      return ok_status();
    });
    if (!st) return st.error();
  }
  return row;
}

// One worker per GPU of --gpus; "all" asks GPUs 0, 1, ... until one does not answer.
Result<std::vector<TuneGpu>> start_gpus(const TuneOptions& options) {
  auto wanted = tune_devices(options);
  if (!wanted) return wanted.error();
  const bool probe = wanted->empty();
  if (probe) wanted->push_back(0);
  std::vector<TuneGpu> gpus;
  for (std::size_t i = 0; i < wanted->size(); ++i) {
    TuneGpu gpu;
    gpu.index = (*wanted)[i];
    gpu.worker = std::make_unique<cuda::WorkerRunner>(cuda::WorkerRunner::self_command(gpu.index));
    auto info = gpu.worker->device_info();
    if (!info) {
      if (probe && !gpus.empty()) break;  // past the last GPU
      return make_error(
          "no GPU " + std::to_string(gpu.index) + " to tune on (" + info.error().message +
              "); to tune without one, replay a recording: kernelevo tune --replay FILE",
          {}, ExitCode::environment);
    }
    gpu.info = *info;
    std::cerr << "kernelevo: GPU " << gpu.index << ": " << gpu.info.name << " (" << gpu.info.arch
              << ", " << gpu.info.sms << " SMs), copy " << static_cast<long>(gpu.info.copy_gbps)
              << " GB/s, read " << static_cast<long>(gpu.info.read_gbps) << " GB/s"
              << (gpu.info.clock_source == "nvml"
                      ? ", SM clock " + std::to_string(gpu.info.sm_clock_mhz) + " MHz"
                      : ", " + gpu.info.clock_source)
              << '\n';
    gpus.push_back(std::move(gpu));
    if (probe) wanted->push_back(gpus.back().index + 1);
  }
  return gpus;
}
#endif

}  // namespace

int tune_specs(const TuneOptions& options) {
#if !KERNELEVO_HAVE_CUDA
  (void)options;
  return report(make_error("this kernelevo was built without CUDA: tune needs --replay FILE", {},
                           ExitCode::environment));
#else
  auto budget = tune_budget(options);
  if (!budget) return report(budget.error());
  SpecLoad load = load_specs(options.paths);
  for (const auto& w : load.warnings) warn(w.to_string());
  if (!load.errors.empty()) {
    int rc = 0;
    for (const auto& e : load.errors) rc = report(e);
    return rc;
  }
  std::vector<const KernelSpec*> selected;
  for (const auto& s : load.specs)
    if (options.kernel.empty() || s.id == options.kernel) selected.push_back(&s);
  if (selected.empty()) {
    return report(make_error(options.kernel.empty()
                                 ? "no marked kernels found"
                                 : "no kernel with id '" + options.kernel + "'"));
  }
  if (!options.shard.empty()) {
    auto shard = parse_shard(options.shard);
    if (!shard) return report(shard.error());
    auto mine = shard_of(selected, *shard);
    std::string ids;
    for (const auto* s : mine) ids += (ids.empty() ? "" : ", ") + s->id;
    std::cerr << "kernelevo: shard " << options.shard << ": " << mine.size() << " of "
              << selected.size() << " kernels" << (ids.empty() ? "" : ": " + ids) << '\n';
    if (mine.empty()) return 0;  // more shards than kernels: nothing to tune here
    selected = std::move(mine);
  }
  if (auto applied = apply_build_settings(options, load.specs, selected); !applied)
    return report(applied.error());
  auto gpus = start_gpus(options);
  if (!gpus) return report(gpus.error());

  cuda::NvrtcCompiler nvrtc;
  cuda::NvccCompiler nvcc;
  cuda::CachingCompiler cached_nvrtc(nvrtc, cuda::CompileCache());
  cuda::CachingCompiler cached_nvcc(nvcc, cuda::CompileCache());
  const TuneRun run{options,         *budget,
                    selected.size(), options.lockfile.empty() ? kLockfileName : options.lockfile,
                    cached_nvrtc,    cached_nvcc};

  // At least as many kernels as GPUs: each GPU takes the next kernel not yet started. Fewer:
  // the kernels in turn, each with every GPU evaluating points of its one search.
  // Rows keep the kernels' order.
  std::vector<std::optional<KernelRow>> rows(selected.size());
  std::optional<Error> stop;
  std::mutex mutex;
  std::size_t next = 0;
  auto work = [&](TuneGpu& gpu) {
    for (;;) {
      std::size_t mine = 0;
      {
        std::lock_guard lock(mutex);
        if (stop || next == selected.size()) return;
        mine = next++;
      }
      auto row = tune_kernel(*selected[mine], {&gpu}, run);
      std::lock_guard lock(mutex);
      if (!row) {
        if (!stop) stop = row.error();
        return;
      }
      rows[mine] = std::move(*row);
    }
  };
  if (gpus->size() == 1) {
    work(gpus->front());
  } else if (selected.size() < gpus->size()) {
    std::vector<TuneGpu*> all;
    for (auto& gpu : *gpus) all.push_back(&gpu);
    for (std::size_t k = 0; k < selected.size() && !stop; ++k) {
      auto row = tune_kernel(*selected[k], all, run);
      if (!row)
        stop = row.error();
      else
        rows[k] = std::move(*row);
    }
  } else {
    std::vector<std::thread> threads;
    for (auto& gpu : *gpus) threads.emplace_back(work, std::ref(gpu));
    for (auto& t : threads) t.join();
  }
  if (stop) return report(*stop);

  int rc = 0;
  std::vector<KernelRow> done;
  for (auto& row : rows) {
    if (!row) continue;
    if (row->exit_code != 0) rc = row->exit_code;
    done.push_back(std::move(*row));
  }
  if (options.format == "json")
    print_json(*gpus, options, done);
  else
    print_text(*gpus, done);
  return rc;
#endif
}

}  // namespace kev::cli
