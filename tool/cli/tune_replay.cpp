#include "cli/tune_replay.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/progress.h"
#include "cli/tune_trace.h"
#include "core/recorded_space.h"
#include "core/replay_evaluator.h"
#include "core/strategy.h"
#include "io/json_value.h"
#include "io/replay_reader.h"

namespace kev::cli {

namespace {

using json = nlohmann::ordered_json;

json params_json(const ParamSet& params) {
  json j = json::object();
  for (const auto& [k, v] : params) j[k] = io::value_to_json<json>(v);
  return j;
}

void print_json(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                const TuneResult& result) {
  json j;
  j["source"] = "replay";
  j["recording"] = options.replay;
  j["kernel"] = rec.kernel;
  j["device"] = rec.device;
  j["strategy"] = options.strategy;
  j["seed"] = options.seed;
  j["noise"] = options.noise;
  j["space_size"] = space.size();
  j["evaluations"] = result.evaluations;
  j["new_evaluations"] = result.new_evaluations;
  j["exhausted"] = result.exhausted;
  j["out_of_time"] = result.out_of_time;
  j["elapsed_s"] = result.elapsed_s;
  json counts = json::object();
  for (const auto& [d, n] : result.counts) counts[to_string(d)] = n;
  j["counts"] = counts;
  if (result.best) {
    j["best"] = {{"params", params_json(space.to_params(result.best->point))},
                 {"time_us", *result.best->outcome.time_us}};
  } else {
    j["best"] = nullptr;
  }
  if (const auto opt = rec.optimum_us()) {
    j["optimum_us"] = *opt;
    j["quality"] = result.best ? json(*opt / *result.best->outcome.time_us) : json(nullptr);
  }
  std::cout << j.dump(2) << '\n';
}

void print_text(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                const TuneResult& result) {
  std::cout << "replay of " << options.replay;
  if (!rec.kernel.empty())
    std::cout << " (" << rec.kernel << (rec.device.empty() ? "" : " on " + rec.device) << ")";
  std::cout << "\nstrategy " << options.strategy << ", seed " << options.seed << ", "
            << result.evaluations << " evaluations of " << space.size() << " points";
  if (result.exhausted) std::cout << " (space exhausted)";
  if (result.out_of_time) std::cout << " (time budget spent)";
  std::cout << "\n";
  std::string counts;
  for (const auto& [d, n] : result.counts)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(d);
  std::cout << "outcomes: " << counts << "\n";
  if (!result.best) {
    std::cout << "no configuration passed\n";
    return;
  }
  std::cout << "best: " << format_time_us(*result.best->outcome.time_us) << "  "
            << space.key(result.best->point) << "\n";
  if (const auto opt = rec.optimum_us())
    std::printf("recorded optimum: %s (best found is %.1f%% of optimum speed)\n",
                format_time_us(*opt).c_str(), 100.0 * *opt / *result.best->outcome.time_us);
}

// The replayed run as a tune report. A recording has no source defaults to compare with,
// so a winner is SAME without a baseline time, as a lockfile entry without one reads.
Report replay_report(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                     const TuneResult& result) {
  Report r;
  r.kind = ReportKind::tune;
  r.tool = std::string("kernelevo ") + KERNELEVO_VERSION;
  r.created = utc_timestamp();
  r.device = rec.device;
  r.mode = "replay";
  KernelReport k;
  k.id = rec.kernel.empty() ? std::filesystem::path(options.replay).stem().string() : rec.kernel;
  k.device = rec.device;
  k.strategy = options.strategy;
  k.evaluations = static_cast<int>(result.evaluations);
  const std::string evaluated =
      std::to_string(result.evaluations) + " evaluations replayed from " + options.replay;
  if (!result.best) {
    k.verdict = KernelVerdict::failed;
    k.evidence = "no configuration passed in " + evaluated;
    r.kernels.push_back(std::move(k));
    return r;
  }
  k.params = space.to_params(result.best->point);
  k.time_us = result.best->outcome.time_us;
  k.verdict = KernelVerdict::same;
  k.evidence = "best of " + evaluated + " (no baseline time)";
  if (const auto opt = rec.optimum_us()) k.evidence += "; recorded optimum " + format_time_us(*opt);
  r.kernels.push_back(std::move(k));
  return r;
}

}  // namespace

int tune_replay(const TuneOptions& options, std::optional<Report>* report_out) {
  auto budget = tune_budget(options);
  if (!budget) return report(budget.error());
  auto rec = io::read_recording(options.replay);
  if (!rec) return report(rec.error());
  const RecordedSpace space(*rec);
  if (space.size() == 0)
    return report(make_error("the recording holds no configuration", {options.replay}));
  auto strategy = make_strategy(options.strategy, space, options.seed);
  if (!strategy) return report(strategy.error());

  io::TraceHeader header;
  header.kernel = rec->kernel;
  header.device = rec->device.empty() ? "replay" : rec->device + " (replay)";
  header.dims = rec->dims;
  header.strategy = options.strategy;
  header.seed = options.seed;
  auto trace = setup_trace(options, header, space);
  if (!trace) return report(trace.error());

  ReplayEvaluator evaluator(
      *rec, options.noise ? std::optional<std::uint64_t>(options.seed) : std::nullopt);
  Progress progress("tune " + options.strategy, budget->evaluations);
  TuneRequest request;
  request.space = &space;
  request.strategy = strategy->get();
  request.evaluator = &evaluator;
  request.budget = *budget;
  request.prior = std::move(trace->prior);
  request.observer = [&](const Evaluation& e, std::size_t index, const Evaluation* best) {
    trace->record(e, space);
    progress.evaluated(index, e, best);
  };
  const TuneResult result = run_tuner(std::move(request));
  progress.finish();
  if (trace->write_error) return report(*trace->write_error);
  if (report_out != nullptr) *report_out = replay_report(options, *rec, space, result);
  if (options.format == "json")
    print_json(options, *rec, space, result);
  else
    print_text(options, *rec, space, result);
  return result.best ? 0 : static_cast<int>(ExitCode::failure);
}

}  // namespace kev::cli
