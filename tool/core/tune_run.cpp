#include "core/tune_run.h"

#include <cstdio>
#include <mutex>
#include <thread>

#include "core/bucket_seeds.h"
#include "core/buckets.h"
#include "core/spec_space.h"
#include "core/strategy.h"
#include "core/time_text.h"

namespace kev {

namespace {

// "0,1": GPU indices as --gpus takes them.
std::string gpu_list(const std::vector<int>& indices) {
  std::string s;
  for (int g : indices) s += (s.empty() ? "" : ",") + std::to_string(g);
  return s;
}

// "[0, 2048) and [8192, inf)"
std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i)
    s += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return s;
}

std::vector<ProblemRow> problem_rows(const RunReport& report) {
  std::vector<ProblemRow> rows;
  for (const auto& p : report.problems)
    if (p.timed) rows.push_back({p.problem, p.time_us, p.gbps, p.copy_fraction});
  return rows;
}

struct Run {
  TuneBackend& backend;
  TuneStore& store;
  TuneConsole& console;
  const TuneRunOptions& options;
};

// A bucket's search of a kernel with `dispatch`.
struct BucketSearch {
  std::size_t index = 0;
  std::string by;
  BucketRange range;
  // A bucket searched with its size defined (bucket_compile_define): the bucket's spec
  // compiled without it, what its winner is timed against.
  std::optional<KernelSpec> unsized;
  // Evaluated first: the winners of the nearest buckets searched before it.
  std::vector<BucketSeed> seeds;
};

// The lockfile: a locked winner is re-measured now and replaced only by a challenger that
// is faster with confidence (per bucket for a kernel with buckets).
// `unsized`: the bucket's evaluator compiling without its size define (null: none), which
// re-measures a winner locked without it.
Status decide_lock(const KernelSpec& spec, const std::string& lock_source, const DeviceInfo& dev,
                   KernelEvaluator& evaluator, KernelEvaluator* unsized, const Outcome& baseline,
                   const TuneResult& result, const Evaluation& chosen, KernelRow& row,
                   const std::optional<BucketSearch>& bucket, const Run& run) {
  const ParamSet& winner = *row.winner;
  const bool sized = row.sized.value_or(true);
  const std::string hash = run.store.source_hash(spec.source);
  auto current = run.store.read_lockfile();
  if (!current) return current.error();
  const ParamSet* locked = nullptr;
  bool locked_sized = true;
  const std::string arch = lock_arch(&spec, dev.arch);
  if (auto k = current->kernels.find(spec.id);
      k != current->kernels.end() && k->second.source_hash == hash)
    if (auto a = k->second.targets.find(arch); a != k->second.targets.end())
      if (auto d = a->second.find(dev.name); d != a->second.end()) {
        const LockEntry& entry = d->second;
        if (!bucket && !entry.has_buckets()) locked = &entry.params;
        if (bucket && entry.by == bucket->by)
          for (const LockBucket& b : entry.buckets)
            if (b.range == bucket->range) {
              locked = &b.params;
              locked_sized = b.sized || !bucket->unsized;  // a wider bucket builds one way
            }
      }
  row.lock = LockAction::locked;
  if (locked && *locked == winner && locked_sized == sized) {
    row.lock = LockAction::already_locked;
    return ok_status();
  }
  const Outcome& winner_outcome = chosen.outcome;
  Outcome before = baseline;
  if (locked) {
    if (locked_sized) {
      before = evaluator.evaluate_params(*locked);
    } else if (unsized != nullptr) {
      before = unsized->evaluate_params(*locked);
    } else {  // choose_sized found the source no longer passing without the define
      before = Outcome{};
      before.disposition = Disposition::incorrect;
      before.detail = "compiled without its size define, the source defaults do not pass";
    }
    const auto m_locked = measured(before);
    const auto m_new = measured(winner_outcome);
    if (m_locked && m_new && !should_replace(*m_locked, *m_new)) {
      row.lock = LockAction::kept;
      row.kept_params = *locked;
      row.kept_us = m_locked->median_us;
      return ok_status();
    }
  }
  if (const auto m_before = measured(before), m_after = measured(winner_outcome);
      m_before && m_after) {
    RunChange& c = row.change.emplace();
    c.id = spec.id;
    c.bucket = row.bucket;
    c.arch = arch;
    c.device = dev.name;
    c.before = *m_before;
    c.after = *m_after;
    c.intervals = before.ci_low_us && before.ci_high_us && winner_outcome.ci_low_us &&
                  winner_outcome.ci_high_us;
    c.before_is_old_entry = locked != nullptr;
  }
  const std::string timing = lock_timing(run.options.l2);
  const std::string tuned_with =
      std::string("kernelevo ") + KERNELEVO_VERSION + ", CUDA " + dev.cuda_version +
      (dev.driver_version.empty() ? "" : ", driver " + dev.driver_version) + ", strategy " +
      run.options.strategy + ", " + std::to_string(result.evaluations) + " evaluations" +
      (bucket ? " per bucket" : "") + l2_provenance(timing) +
      (run.options.device_code == DeviceCodeCompiler::nvrtc ? ", NVRTC" : "") +
      (run.options.memcheck ? ", memcheck clean" : "") +
      (row.objectives.empty() ? "" : ", " + row.objectives);
  // Only NVRTC's is written: an entry that does not say is nvcc's.
  const std::string compiler = run.options.device_code == DeviceCodeCompiler::nvrtc
                                   ? compiler_name(DeviceCodeCompiler::nvrtc)
                                   : "";
  return run.store.update_lockfile([&](Lockfile& lock) -> Status {
    if (bucket) {
      set_bucket(lock, spec.id, lock_source, hash, arch, dev.name, bucket->by,
                 {bucket->range, winner, row.winner_us, row.baseline_us, sized}, tuned_with, timing,
                 compiler, kFlushRevision);
      return ok_status();
    }
    LockEntry entry;
    entry.params = winner;
    entry.time_us = row.winner_us;
    entry.baseline_us = row.baseline_us;
    entry.tuned_with = tuned_with;
    entry.timing = timing;
    entry.compiler = compiler;
    entry.flush = kFlushRevision;
    set_entry(lock, spec.id, lock_source, hash, arch, dev.name, entry);
    return ok_status();
  });
}

// A spec with `objectives`: the Pareto front of time and the named resources over the
// passed configurations, and the one the rule locks. Without every passed configuration's
// resources (a runner or a recorded trace that gives none) the fastest is locked, as without
// objectives, and the run says so.
const Evaluation& apply_objectives(const ObjectivesSpec& objectives, const TuneResult& result,
                                   const SearchSpace& space, KernelRow& row, TuneConsole& console,
                                   const std::string& name) {
  std::vector<const Evaluation*> passed;
  std::vector<ObjectiveCandidate> candidates;
  std::size_t without = 0;
  for (const Evaluation& e : result.history) {
    if (!e.outcome.passed() || !e.outcome.time_us) continue;
    if (!e.outcome.resources) {
      ++without;
      continue;
    }
    candidates.push_back({passed.size(), *e.outcome.time_us, *e.outcome.resources});
    passed.push_back(&e);
  }
  if (without > 0 || candidates.empty()) {
    row.objectives = "objectives not applied: " + std::to_string(without) +
                     " passed configurations have no resources recorded";
    console.warn(name + ": " + row.objectives + "; the fastest is locked");
    return *result.best;
  }
  for (const ObjectiveCandidate& c : pareto_front(candidates, objectives.minimize))
    row.pareto.push_back({space.to_params(passed[c.index]->point), c.time_us, c.resources});
  const ObjectiveCandidate pick = *choose_by_objectives(candidates, objectives);
  const Evaluation& chosen = *passed[pick.index];
  const Evaluation& fastest = *result.best;
  char within[32];
  std::snprintf(within, sizeof within, "%g%%", objectives.within * 100.0);
  row.objectives = "objectives: lowest " + resource_order_text(objectives.minimize) + " within " +
                   within + " of the fastest";
  if (chosen.point != fastest.point && fastest.outcome.resources)
    console.note(name + ": " + row.objectives + ": locks " +
                 resources_text(pick.resources, objectives.minimize) + " at " +
                 format_time_us(pick.time_us) + " over the fastest's " +
                 resources_text(*fastest.outcome.resources, objectives.minimize) + " at " +
                 format_time_us(*fastest.outcome.time_us));
  return chosen;
}

// What one kernel's searches share: its compiled source, its trace (opened once, for a
// kernel with buckets) and where the lockfile names its source.
struct KernelContext {
  KernelEvaluatorOptions options;
  std::string lock_source;
  KernelTrace* trace = nullptr;  // the kernel's trace with buckets; null: opened per search
};

// A one-size bucket's points are compiled with its size defined, a constant the compiler
// folds in; it can also cost more than it saves (more registers, fewer blocks per SM). The
// winner is timed both ways, back to back, and locked without the define when that is faster
// with confidence (should_replace), `row` and `chosen` then taking the unsized times. The
// build without a lock compiles the source defaults without the define, so they are the
// bucket's baseline, timed beside the two, and locked instead when they beat the winner with
// confidence. Returns the evaluator compiling without the define (null when its baseline
// fails: the winner stays sized).
std::unique_ptr<KernelEvaluator> choose_sized(const KernelSpec& spec,
                                              const KernelSpec& unsized_spec,
                                              const SearchSpace& space, int gpu,
                                              KernelEvaluator& sized, Evaluation& chosen,
                                              KernelRow& row, const std::string& name,
                                              const KernelContext& context, const Run& run) {
  row.sized = true;
  const ParamSet winner = *row.winner;
  auto plain = run.backend.evaluator(unsized_spec, space, gpu, context.options);
  const std::string what = name + ": without its size define, ";
  // The same source, so the same defaults as the search's baseline compiled with.
  const ParamSet defaults = sized.baseline_defaults();
  const bool defaults_lockable = !defaults.empty() && defaults != winner &&
                                 check_params(defaults, spec, name).ok() &&
                                 check_constraints(defaults, spec, name).ok();
  // The compiles side by side: the winner's both ways and the defaults' while the baseline's
  // runs.
  sized.prefetch_params({winner});
  std::vector<ParamSet> ahead{winner};
  if (defaults_lockable) ahead.push_back(defaults);
  plain->prefetch_params(ahead);
  auto base = plain->measure_baseline();
  if (!base || !base->passed()) {
    const std::string why = base ? std::string("are ") + to_string(base->disposition) +
                                       (base->detail.empty() ? "" : ": " + base->detail)
                                 : "fail: " + base.error().message;
    run.console.note(what + "the source defaults " + why + "; the winner is locked with it");
    return nullptr;
  }
  const Outcome with = sized.evaluate_params(winner);
  const Outcome without = plain->evaluate_params(winner);
  const std::vector<ProblemRow> without_rows = problem_rows(plain->last_report());
  Outcome plain_defaults = *base;
  std::vector<ProblemRow> defaults_rows = problem_rows(plain->baseline_report());
  if (defaults_lockable) {
    plain_defaults = plain->evaluate_params(defaults);
    defaults_rows = problem_rows(plain->last_report());
  }
  row.baseline_us = plain_defaults.time_us;  // what the build compiles without a lock
  const auto m_with = measured(with);
  const auto m_without = measured(without);
  const auto text = [](const Outcome& o, const std::optional<Measured>& m) {
    return m ? format_time_us(m->median_us, TimeDigits::compact)
             : std::string(to_string(o.disposition));
  };
  const std::string times =
      "the winner " + text(without, m_without) + " (with it " + text(with, m_with) + ")";
  std::optional<Measured> kept = m_with;
  if (!m_with || !m_without || !should_replace(*m_with, *m_without)) {
    run.console.note(what + times + ": locked with it");
  } else {
    run.console.note(what + times + ": faster with confidence, locked without it");
    row.sized = false;
    row.winner_us = without.time_us;
    row.problems = without_rows;
    chosen.outcome = without;
    kept = m_without;
  }
  const auto m_defaults = measured(plain_defaults);
  if (defaults_lockable && kept && m_defaults && should_replace(*kept, *m_defaults)) {
    run.console.note(what + "the source defaults " + text(plain_defaults, m_defaults) +
                     " beat the winner's " + format_time_us(kept->median_us, TimeDigits::compact) +
                     " with confidence: the defaults are locked without it");
    row.winner = defaults;
    row.winner_us = plain_defaults.time_us;
    row.problems = defaults_rows;
    row.defaults_locked = true;
    row.sized = false;
    chosen.outcome = plain_defaults;
  }
  return plain;
}

// One search of `spec` (a kernel, or one bucket of it: `bucket`) on `gpus`: the baseline,
// the search, memcheck, the lock decision.
Result<KernelRow> tune_search(const KernelSpec& spec, const std::optional<BucketSearch>& bucket,
                              const std::vector<const TuneDevice*>& gpus,
                              const KernelContext& context, const Run& run) {
  const TuneRunOptions& options = run.options;
  const TuneDevice& gpu = *gpus.front();
  const DeviceInfo& dev = gpu.info;
  KernelRow row;
  row.id = spec.id;
  const std::string name =
      bucket ? spec.id + " " + bucket_label(bucket->by, bucket->range) : spec.id;
  if (bucket) row.bucket = bucket_label(bucket->by, bucket->range);
  for (const TuneDevice* g : gpus) row.gpus.push_back(g->index);
  SpecSpace space(spec, spec.problems);
  auto strategy = make_strategy(options.strategy, space, options.seed);
  if (!strategy) return strategy.error();
  const auto evaluator = run.backend.evaluator(spec, space, gpu.index, context.options);
  const SpaceCount configurations = space.count();
  run.console.note(name + ": " + to_string(configurations) +
                   " configurations; measuring the baseline" +
                   (options.gpus_named ? " on GPU " + std::to_string(gpu.index) : ""));
  // The search starts from the nearest buckets' winners: they compile while the baseline does.
  std::vector<Point> seeds = bucket ? seed_points(space, bucket->seeds) : std::vector<Point>{};
  evaluator->prefetch(seeds);
  auto baseline = evaluator->measure_baseline();
  if (!baseline) {
    run.console.error(baseline.error());
    row.exit_code = static_cast<int>(baseline.error().code);
    row.failure = baseline.error().message;
    return row;
  }
  if (!baseline->passed()) {
    row.failure = std::string("the baseline (source defaults) is ") +
                  to_string(baseline->disposition) + ": " + baseline->detail;
    run.console.warn(spec.where.to_string() + ": " + name + ": " + row.failure);
    row.exit_code = static_cast<int>(ExitCode::failure);
    return row;
  }
  row.baseline_us = baseline->time_us;
  // The other GPUs share the search: their evaluators share the compiles and the reference.
  std::vector<std::unique_ptr<KernelEvaluator>> siblings;
  std::vector<KernelEvaluator*> evaluators{evaluator.get()};
  for (std::size_t g = 1; g < gpus.size(); ++g) {
    siblings.push_back(run.backend.sibling(*evaluator, gpus[g]->index));
    evaluators.push_back(siblings.back().get());
  }
  if (gpus.size() > 1)
    run.console.note(name + ": one search on GPUs " + gpu_list(row.gpus) +
                     ", each evaluating the next configuration");

  std::unique_ptr<KernelTrace> own_trace;
  KernelTrace* trace = context.trace;
  std::vector<Evaluation> prior;
  if (bucket) {
    auto p = trace->take_bucket_prior(bucket->index, space);
    if (!p) return p.error();
    prior = std::move(*p);
  } else {
    auto opened = run.store.open_trace(
        spec, space, dev.name,
        run.backend.trace_compilers(spec, context.options.source_text, run.options.device_code));
    if (!opened) return opened.error();
    own_trace = std::move(*opened);
    trace = own_trace.get();
    prior = trace->take_prior();
  }

  std::map<std::string, std::vector<ProblemRow>> problems_by_key;
  std::optional<std::uint64_t> expected = options.budget.evaluations;
  if (!expected && configurations.exact) expected = configurations.value;
  const auto progress = run.console.progress("tune " + name, expected);
  TuneRequest request;
  request.space = &space;
  request.strategy = strategy->get();
  request.evaluator = evaluator.get();
  request.more_evaluators.assign(evaluators.begin() + 1, evaluators.end());
  request.budget = options.budget;
  request.prior = std::move(prior);
  if (bucket) {
    request.seeds = std::move(seeds);
    std::vector<std::string> from;
    for (const BucketSeed& s : bucket->seeds) from.push_back(s.from.to_string());
    if (!request.seeds.empty())
      run.console.note(name + ": starting from the winners of " + join(from));
  }
  request.lookahead = 16;
  auto note_throttle = [&](const RunReport& report) {
    if (report.warnings.empty()) return;
    if (row.throttled++ == 0)  // once per kernel on stderr; counted in the table
      run.console.warn(name + ": " + report.warnings +
                       "; the times measured while it lasts are slow");
    row.throttle = report.warnings;
  };
  note_throttle(evaluator->baseline_report());
  request.observer = [&](const Evaluation& e, std::size_t index, const Evaluation* best) {
    const RunReport& report = evaluators[e.worker]->last_report();
    note_throttle(report);
    if (e.outcome.passed()) problems_by_key[space.key(e.point)] = problem_rows(report);
    if (!e.outcome.passed() && e.outcome.disposition != Disposition::compile_failed)
      run.console.note(
          name + ": " + space.key(e.point) + ": " + to_string(e.outcome.disposition) + ": ",
          e.outcome.detail.substr(0, 300));
    if (bucket)
      trace->record_bucket(e, space, bucket->index);
    else
      trace->record(e, space);
    progress->evaluated(index, e, best);
  };
  const TuneResult result = run_tuner(std::move(request));
  progress->finish();
  if (auto error = trace->write_error()) return *error;
  row.evaluations = result.evaluations;
  row.counts = result.counts;
  row.elapsed_s = result.elapsed_s;
  if (!result.best) {
    row.failure = "no configuration passed";
    row.exit_code = static_cast<int>(ExitCode::failure);
    return row;
  }
  Evaluation chosen =
      spec.objectives ? apply_objectives(*spec.objectives, result, space, row, run.console, name)
                      : *result.best;
  ParamSet winner = space.to_params(chosen.point);
  row.winner = winner;
  row.winner_us = chosen.outcome.time_us;
  if (auto it = problems_by_key.find(space.key(chosen.point)); it != problems_by_key.end())
    row.problems = it->second;
  // A search whose fastest is slower than the source defaults would make the build slower
  // than no tuning: the defaults are locked instead, when they are a configuration the spec
  // lists. (The fastest, not the objectives' pick, which may trade a share of time.)
  if (const auto m_base = measured(*baseline), m_best = measured(result.best->outcome);
      m_base && m_best && m_best->median_us > m_base->median_us) {
    const ParamSet defaults = evaluator->baseline_defaults();
    const std::string why = name + ": no configuration was faster than the source defaults (" +
                            format_time_us(m_best->median_us, TimeDigits::compact) + " against " +
                            format_time_us(m_base->median_us, TimeDigits::compact) + ")";
    if (defaults.empty() || !check_params(defaults, spec, name).ok() ||
        !check_constraints(defaults, spec, name).ok()) {
      run.console.note(why + "; they are not a configuration of its space, so nothing is locked");
      row.winner.reset();
      row.winner_us.reset();
      row.problems.clear();
      row.lock = LockAction::not_locked;
      return row;
    }
    run.console.note(why + ": the defaults are locked");
    winner = defaults;
    row.winner = winner;
    row.winner_us = baseline->time_us;
    row.problems = problem_rows(evaluator->baseline_report());
    row.defaults_locked = true;
    chosen.outcome = *baseline;
  }

  std::unique_ptr<KernelEvaluator> unsized;
  if (bucket && bucket->unsized) {
    unsized = choose_sized(spec, *bucket->unsized, space, gpu.index, *evaluator, chosen, row, name,
                           context, run);
    winner = *row.winner;
  }
  KernelEvaluator& built = row.sized == false ? *unsized : *evaluator;

  if (options.memcheck) {
    run.console.note(name + ": running the winner under compute-sanitizer memcheck");
    const auto check = run.backend.memcheck(built, winner, gpu.index, dev);
    row.memcheck = check.summary;
    if (!check.clean) {
      row.failure = check.ran ? "the winner fails memcheck: " + check.summary
                              : "--memcheck could not run: " + check.summary;
      row.exit_code = static_cast<int>(check.ran ? ExitCode::failure : ExitCode::environment);
      row.lock = LockAction::not_locked;
      return row;
    }
  }
  if (auto st = decide_lock(spec, context.lock_source, dev, *evaluator, unsized.get(), *baseline,
                            result, chosen, row, bucket, run);
      !st)
    return st.error();
  return row;
}

// Tunes `spec` on `gpus` (the first measures the baseline; with several, each evaluates the
// next proposal of one shared search): one row, or with `dispatch` one search and one row
// per bucket, in the bucket order, sharing the compiled source, the compile cache and one
// trace.
Result<std::vector<KernelRow>> tune_kernel(const KernelSpec& spec,
                                           const std::vector<const TuneDevice*>& gpus,
                                           const Run& run) {
  const auto lock_source = run.store.lock_source(spec.source);
  if (!lock_source) return lock_source.error();
  KernelContext context;
  context.lock_source = *lock_source;
  context.options.arch = gpus.front()->info.arch;
  context.options.seed = run.options.seed;
  context.options.dirty_l2 = run.options.l2.dirty_l2;
  context.options.charge_writeback = run.options.l2.charge_writeback;
  context.options.timeout_seconds = run.options.timeout_seconds;
  context.options.device_code = run.options.device_code;
  // A current evolved variant is what the build compiles, so it is what is tuned.
  if (auto lock = run.store.read_lockfile(); lock) {
    if (auto variant = run.store.compiled_variant(spec, *lock)) {
      context.options.source_text = std::move(variant->text);
      run.console.note(spec.id + ": tuning " + variant->label + " (what the build compiles)");
    }
  }
  if (!spec.dispatch) {
    auto row = tune_search(spec, std::nullopt, gpus, context, run);
    if (!row) return row.error();
    return std::vector<KernelRow>{std::move(*row)};
  }
  const DispatchSpec& d = *spec.dispatch;
  const SpecSpace all(spec, spec.problems);
  auto trace = run.store.open_trace(
      spec, all, gpus.front()->info.name,
      run.backend.trace_compilers(spec, context.options.source_text, run.options.device_code));
  if (!trace) return trace.error();
  context.trace = trace->get();
  run.console.note(spec.id + ": " + std::to_string(d.buckets.size()) + " buckets of " + d.by +
                   ", one search each");
  std::vector<KernelRow> rows;
  BucketWinners won;
  for (std::size_t b = 0; b < d.buckets.size(); ++b) {
    const KernelSpec one = bucket_spec(spec, b);
    BucketSearch search{b, d.by, d.buckets[b], std::nullopt, won.nearest(d.buckets[b])};
    if (bucket_compile_define(spec, d.by, d.buckets[b], true))
      search.unsized = spec_for_bucket(spec, d.by, d.buckets[b], false);
    auto row = tune_search(one, search, gpus, context, run);
    if (!row) return row.error();
    if (row->winner) won.add(d.buckets[b], *row->winner);
    rows.push_back(std::move(*row));
  }
  return rows;
}

}  // namespace

Result<std::vector<TuneDevice>> open_devices(TuneBackend& backend, const std::vector<int>& wanted,
                                             TuneConsole& console) {
  std::vector<int> indices = wanted;
  const bool probe = indices.empty();
  if (probe) indices.push_back(0);
  std::vector<TuneDevice> devices;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    TuneDevice device;
    device.index = indices[i];
    auto info = backend.open_device(device.index);
    if (!info) {
      if (probe && !devices.empty()) break;  // past the last GPU
      return make_error(
          "no GPU " + std::to_string(device.index) + " to tune on (" + info.error().message +
              "); to tune without one, replay a recording: kernelevo tune --replay FILE",
          {}, ExitCode::environment);
    }
    device.info = *info;
    const DeviceInfo& d = device.info;
    console.note("GPU " + std::to_string(device.index) + ": " + d.name + " (" + d.arch + ", " +
                 std::to_string(d.sms) + " SMs), copy " +
                 std::to_string(static_cast<long>(d.copy_gbps)) + " GB/s, read " +
                 std::to_string(static_cast<long>(d.read_gbps)) + " GB/s" +
                 (d.clock_source == "nvml" ? ", SM clock " + std::to_string(d.sm_clock_mhz) + " MHz"
                                           : ", " + d.clock_source));
    devices.push_back(std::move(device));
    if (probe) indices.push_back(devices.back().index + 1);
  }
  return devices;
}

Result<std::vector<KernelRow>> tune_kernels(const std::vector<const KernelSpec*>& kernels,
                                            const std::vector<TuneDevice>& devices,
                                            TuneBackend& backend, TuneStore& store,
                                            TuneConsole& console, const TuneRunOptions& options) {
  const Run run{backend, store, console, options};
  std::vector<std::optional<std::vector<KernelRow>>> rows(kernels.size());
  std::optional<Error> stop;
  std::mutex mutex;
  std::size_t next = 0;
  // Each GPU takes the next kernel not yet started.
  auto work = [&](const TuneDevice& gpu) {
    for (;;) {
      std::size_t mine = 0;
      {
        std::lock_guard lock(mutex);
        if (stop || next == kernels.size()) return;
        mine = next++;
      }
      auto row = tune_kernel(*kernels[mine], {&gpu}, run);
      std::lock_guard lock(mutex);
      if (!row) {
        if (!stop) stop = row.error();
        return;
      }
      rows[mine] = std::move(*row);
    }
  };
  if (devices.size() == 1) {
    work(devices.front());
  } else if (kernels.size() < devices.size()) {
    // Fewer kernels than GPUs: the kernels in turn, every GPU evaluating points of its search.
    std::vector<const TuneDevice*> all;
    for (const auto& gpu : devices) all.push_back(&gpu);
    for (std::size_t k = 0; k < kernels.size() && !stop; ++k) {
      auto row = tune_kernel(*kernels[k], all, run);
      if (!row)
        stop = row.error();
      else
        rows[k] = std::move(*row);
    }
  } else {
    std::vector<std::thread> threads;
    for (const auto& gpu : devices) threads.emplace_back(work, std::cref(gpu));
    for (auto& t : threads) t.join();
  }
  if (stop) return *stop;
  std::vector<KernelRow> done;
  for (auto& kernel_rows : rows)
    if (kernel_rows)
      for (auto& row : *kernel_rows) done.push_back(std::move(row));
  return done;
}

}  // namespace kev
