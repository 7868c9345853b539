#include "cuda/gpu_evaluator.h"

#include "core/source_defaults.h"
#include "cuda/compile_request.h"
#include "cuda/files.h"
#include "cuda/source_kind.h"

namespace kev::cuda {

namespace {

std::string tail_of(const std::string& log, std::size_t max = 4000) {
  return log.size() <= max ? log : "..." + log.substr(log.size() - max);
}

}  // namespace

GpuEvaluator::GpuEvaluator(const KernelSpec& spec, const SearchSpace& space, Compiler& nvrtc,
                           Compiler& nvcc, Runner& runner, GpuEvaluatorOptions options)
    : spec_(spec), space_(space), compiler_(nvrtc), runner_(runner), options_(std::move(options)) {
  // Decided once the source is read (measure_baseline); nvrtc until then.
  nvcc_ = &nvcc;
  pool_ = std::make_unique<CompilePool>(compiler_, options_.compile_threads);
}

GpuEvaluator::~GpuEvaluator() {
  pool_.reset();  // finish queued compiles before the compiler may go away
}

CompileRequest GpuEvaluator::request_for(const ParamSet& params, bool with_reference) const {
  return compile_request_for(spec_, source_text_, params, options_.arch, with_reference);
}

std::shared_future<CompileOutput> GpuEvaluator::compile_async(const ParamSet& params) {
  Compiler& c = holds_host_code(source_text_) ? *nvcc_ : compiler_;
  if (&c == &compiler_) return pool_->submit(request_for(params, false)).share();
  // nvcc is a separate process per compile: run it on the pool's threads as well.
  auto promise = std::make_shared<std::promise<CompileOutput>>();
  auto future = promise->get_future().share();
  CompileRequest req = request_for(params, false);
  std::thread([promise, req, &c] { promise->set_value(c.compile(req)); }).detach();
  return future;
}

Result<Outcome> GpuEvaluator::measure_baseline() {
  auto text = read_whole_file(spec_.source);
  if (!text) return make_error("cannot read the kernel source " + spec_.source, spec_.where);
  source_text_ = std::move(*text);
  auto defaults = source_defaults(source_text_, spec_);
  if (!defaults) return defaults.error();
  defaults_ = std::move(defaults).value();

  Compiler& c = holds_host_code(source_text_) ? *nvcc_ : compiler_;
  CompileOutput base = c.compile(request_for({}, true));
  compile_seconds_ += base.seconds;
  if (!base.ok)
    return make_error("the source does not compile with its own defaults:\n" + tail_of(base.log),
                      spec_.where);
  const std::string ref_name =
      spec_.reference.empty() || spec_.reference == "default" ? spec_.kernel : spec_.reference;
  auto it = base.lowered_names.find(ref_name);
  reference_.image = base.image;
  reference_.function = it != base.lowered_names.end() ? it->second : ref_name;
  Outcome o = run(defaults_, base);
  baseline_report_ = last_report_;
  return o;
}

Outcome GpuEvaluator::run(const ParamSet& params, const CompileOutput& compiled) {
  RunRequest req;
  req.spec = spec_;
  req.params = params;
  req.reference_params = defaults_;
  req.candidate.image = compiled.image;
  auto it = compiled.lowered_names.find(spec_.kernel);
  req.candidate.function = it != compiled.lowered_names.end() ? it->second : spec_.kernel;
  req.reference = reference_;
  req.timing = options_.timing;
  last_report_ = runner_.run(req);
  return last_report_.outcome;
}

Outcome GpuEvaluator::evaluate_params(const ParamSet& params) {
  ParamSet full = defaults_;
  for (const auto& [k, v] : params) full[k] = v;
  CompileOutput out = compile_async(params).get();
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
  if (auto it = pending_.find(key); it != pending_.end()) {
    future = it->second;
    pending_.erase(it);
  } else {
    future = compile_async(space_.to_params(p));
  }
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
  for (const auto& p : upcoming) {
    const std::string key = space_.key(p);
    if (pending_.count(key)) continue;
    pending_.emplace(key, compile_async(space_.to_params(p)));
  }
}

void GpuEvaluator::set_incumbent_us(double best_us) { options_.timing.incumbent_us = best_us; }

}  // namespace kev::cuda
