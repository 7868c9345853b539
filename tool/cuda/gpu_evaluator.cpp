#include "cuda/gpu_evaluator.h"

#include "core/source_defaults.h"
#include "core/timing_plan.h"
#include "cuda/compile_request.h"
#include "cuda/files.h"
#include "cuda/triton_compiler.h"

namespace kev::cuda {

namespace {

std::string tail_of(const std::string& log, std::size_t max = 4000) {
  return log.size() <= max ? log : "..." + log.substr(log.size() - max);
}

std::string defines_key(const CompileRequest& request) {
  std::string key;
  for (const auto& [name, value] : request.defines) key += name + "=" + value + "\n";
  return key;
}

}  // namespace

GpuEvaluator::GpuEvaluator(const KernelSpec& spec, const SearchSpace& space, Compiler& compiler,
                           Runner& runner, GpuEvaluatorOptions options)
    : spec_(spec),
      space_(space),
      compiler_(compiler),
      runner_(runner),
      options_(std::move(options)),
      compiles_(std::make_shared<Compiles>()) {
  compiles_->pool = std::make_unique<CompilePool>(compiler_, options_.compile_threads);
  incumbent_us_ = options_.timing.incumbent_us;
}

// The compilers outlive every evaluator; the last sibling to go finishes the queued compiles.
GpuEvaluator::~GpuEvaluator() = default;

GpuEvaluator::GpuEvaluator(const GpuEvaluator& first, Runner& runner)
    : spec_(first.spec_),
      space_(first.space_),
      compiler_(first.compiler_),
      runner_(runner),
      options_(first.options_),
      compiles_(first.compiles_),
      source_loaded_(first.source_loaded_),
      source_text_(first.source_text_),
      defaults_(first.defaults_),
      reference_(first.reference_),
      incumbent_us_(first.incumbent_us_.load()) {}

std::unique_ptr<GpuEvaluator> GpuEvaluator::sibling(Runner& runner) const {
  return std::unique_ptr<GpuEvaluator>(new GpuEvaluator(*this, runner));
}

CompileRequest GpuEvaluator::request_for(const ParamSet& params, bool with_reference) const {
  if (spec_.language == SourceLanguage::triton) {  // Triton has no fallbacks in the source
    ParamSet full = defaults_;
    for (const auto& [k, v] : params) full[k] = v;
    return compile_request_for(spec_, source_text_, full, options_.arch, with_reference);
  }
  return compile_request_for(spec_, source_text_, params, options_.arch, with_reference);
}

std::shared_future<CompileOutput> GpuEvaluator::compile_async(const ParamSet& params) {
  return compiles_->pool->submit(request_for(params, false)).share();
}

Status GpuEvaluator::load_source() {
  if (source_loaded_) return ok_status();
  auto text = options_.source_text ? options_.source_text : read_whole_file(spec_.source);
  if (!text) return make_error("cannot read the kernel source " + spec_.source, spec_.where);
  auto defaults = source_defaults(*text, spec_);
  if (!defaults) return defaults.error();
  source_text_ = std::move(*text);
  defaults_ = std::move(defaults).value();
  source_loaded_ = true;
  return ok_status();
}

std::shared_future<CompileOutput> GpuEvaluator::params_compile(const ParamSet& params) {
  CompileRequest request = request_for(params, false);
  const std::string key = defines_key(request);
  {
    std::lock_guard lock(compiles_->mutex);
    if (auto it = compiles_->pending_params.find(key); it != compiles_->pending_params.end()) {
      auto future = it->second;
      compiles_->pending_params.erase(it);
      return future;
    }
  }
  return compiles_->pool->submit(std::move(request)).share();
}

Result<Outcome> GpuEvaluator::measure_baseline() {
  if (auto loaded = load_source(); !loaded) return loaded.error();

  const bool triton = spec_.language == SourceLanguage::triton;
  // A Triton spec's defaults are the configuration its baseline compiles with.
  CompileOutput base = compiler_.compile(request_for(triton ? defaults_ : ParamSet{}, true));
  compile_seconds_ += base.seconds;
  if (!base.ok) {
    // No Triton at all is the machine's problem, not the kernel's.
    const bool no_triton = base.log.find(kTritonNotFound) != std::string::npos;
    return make_error(
        no_triton ? tail_of(base.log)
                  : "the source does not compile with its own defaults:\n" + tail_of(base.log),
        spec_.where, no_triton ? ExitCode::environment : ExitCode::usage);
  }
  const std::string ref_name =
      spec_.reference.empty() || spec_.reference == "default" ? spec_.kernel : spec_.reference;
  if (separate_reference(spec_)) {
    const CompileOutput ref =
        compiler_.compile(reference_request_for(spec_, source_text_, defaults_, options_.arch));
    compile_seconds_ += ref.seconds;
    const std::string where =
        spec_.reference_source.empty() ? spec_.source : spec_.reference_source;
    if (!ref.ok)
      return make_error("the reference kernel `" + spec_.reference + "` (" + where +
                            ") does not compile:\n" + tail_of(ref.log),
                        spec_.where);
    auto it = ref.lowered_names.find(ref_name);
    reference_.image = ref.image;
    reference_.function = it != ref.lowered_names.end() ? it->second : ref_name;
    reference_.launch = ref.launch;
  } else {
    auto it = base.lowered_names.find(ref_name);
    reference_.image = base.image;
    reference_.function = it != base.lowered_names.end() ? it->second : ref_name;
    reference_.launch = base.launch;
  }
  Outcome o = run(defaults_, base);
  baseline_report_ = last_report_;
  return o;
}

RunRequest GpuEvaluator::run_request(const ParamSet& params, const CompileOutput& compiled) const {
  RunRequest req;
  req.spec = spec_;
  req.params = params;
  req.reference_params = defaults_;
  req.candidate.image = compiled.image;
  auto it = compiled.lowered_names.find(spec_.kernel);
  req.candidate.function = it != compiled.lowered_names.end() ? it->second : spec_.kernel;
  req.candidate.launch = compiled.launch;
  req.reference = reference_;
  req.timing = timing_for(spec_, options_.timing);
  req.timing.incumbent_us = incumbent_us_;
  return req;
}

Outcome GpuEvaluator::run(const ParamSet& params, const CompileOutput& compiled) {
  last_report_ = runner_.run(run_request(params, compiled));
  return last_report_.outcome;
}

RunReport GpuEvaluator::run_params_on(Runner& runner, const ParamSet& params,
                                      const TimingOptions& timing, bool time_it) {
  ParamSet full = defaults_;
  for (const auto& [k, v] : params) full[k] = v;
  const CompileOutput out = params_compile(params).get();
  RunReport report;
  if (!out.ok) {
    report.outcome.disposition = Disposition::compile_failed;
    report.outcome.detail = tail_of(out.log);
    return report;
  }
  RunRequest req = run_request(full, out);
  req.timing = timing_for(spec_, timing);
  req.time_it = time_it;
  return runner.run(req);
}

Outcome GpuEvaluator::evaluate_params(const ParamSet& params) {
  ParamSet full = defaults_;
  for (const auto& [k, v] : params) full[k] = v;
  CompileOutput out = params_compile(params).get();
  compile_seconds_ += out.seconds;
  if (!out.ok) {
    Outcome o;
    o.disposition = Disposition::compile_failed;
    o.detail = tail_of(out.log);
    return o;
  }
  return run(full, out);
}

Outcome GpuEvaluator::evaluate(const Point& p) {
  const std::string key = space_.key(p);
  std::shared_future<CompileOutput> future;
  {
    std::lock_guard lock(compiles_->mutex);
    compiles_->taken.insert(key);
    if (auto it = compiles_->pending.find(key); it != compiles_->pending.end()) {
      future = it->second;
      compiles_->pending.erase(it);
    }
  }
  if (!future.valid()) future = compile_async(space_.to_params(p));
  const CompileOutput& out = future.get();
  compile_seconds_ += out.seconds;
  if (!out.ok) {
    Outcome o;
    o.disposition = Disposition::compile_failed;
    o.detail = tail_of(out.log);
    last_report_ = RunReport{};
    last_report_.outcome = o;
    return o;
  }
  ParamSet params = defaults_;
  for (const auto& [k, v] : space_.to_params(p)) params[k] = v;
  return run(params, out);
}

void GpuEvaluator::prefetch(const std::vector<Point>& upcoming) {
  if (!load_source()) return;  // measure_baseline says why
  std::lock_guard lock(compiles_->mutex);
  for (const auto& p : upcoming) {
    const std::string key = space_.key(p);
    if (compiles_->pending.count(key) || compiles_->taken.count(key)) continue;
    compiles_->pending.emplace(key, compile_async(space_.to_params(p)));
  }
}

void GpuEvaluator::prefetch_params(const std::vector<ParamSet>& upcoming) {
  if (!load_source()) return;  // measure_baseline says why
  std::lock_guard lock(compiles_->mutex);
  for (const ParamSet& params : upcoming) {
    CompileRequest request = request_for(params, false);
    std::string key = defines_key(request);
    if (compiles_->pending_params.count(key)) continue;
    compiles_->pending_params.emplace(std::move(key),
                                      compiles_->pool->submit(std::move(request)).share());
  }
}

void GpuEvaluator::set_incumbent_us(double best_us) { incumbent_us_ = best_us; }

}  // namespace kev::cuda
