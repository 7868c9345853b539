#include "cli/tune_replay.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/progress.h"
#include "cli/tune_trace.h"
#include "core/bucket_seeds.h"
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

json replay_json(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                 const TuneResult& result, const std::string& bucket) {
  json j;
  j["source"] = "replay";
  j["recording"] = options.replay;
  j["kernel"] = rec.kernel;
  if (!bucket.empty()) j["bucket"] = bucket;
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
  return j;
}

void print_text(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                const TuneResult& result, const std::string& bucket) {
  std::cout << "replay of " << options.replay;
  if (!rec.kernel.empty())
    std::cout << " (" << rec.kernel << (bucket.empty() ? "" : " " + bucket)
              << (rec.device.empty() ? "" : " on " + rec.device) << ")";
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
KernelReport replay_row(const TuneOptions& options, const Recording& rec, const SearchSpace& space,
                        const TuneResult& result, const std::string& bucket) {
  KernelReport k;
  k.id = rec.kernel.empty() ? std::filesystem::path(options.replay).stem().string() : rec.kernel;
  k.bucket = bucket;
  k.device = rec.device;
  k.strategy = options.strategy;
  k.evaluations = static_cast<int>(result.evaluations);
  const std::string evaluated =
      std::to_string(result.evaluations) + " evaluations replayed from " + options.replay;
  if (!result.best) {
    k.verdict = KernelVerdict::failed;
    k.evidence = "no configuration passed in " + evaluated;
    return k;
  }
  k.params = space.to_params(result.best->point);
  k.time_us = result.best->outcome.time_us;
  k.verdict = KernelVerdict::same;
  k.evidence = "best of " + evaluated + " (no baseline time)";
  if (const auto opt = rec.optimum_us()) k.evidence += "; recorded optimum " + format_time_us(*opt);
  return k;
}

// One search over one recorded space (a bucket's, for a trace with buckets).
struct Replayed {
  TuneResult result;
  std::optional<Error> error;
};

// `seeds`: the winners of the nearest buckets replayed before it, evaluated first, as tune
// starts a bucket's search.
Replayed replay_search(const TuneOptions& options, const TuneBudget& budget, const Recording& rec,
                       const RecordedSpace& space, TraceSetup& trace,
                       std::optional<std::size_t> bucket, const std::string& label,
                       const std::vector<BucketSeed>& seeds) {
  auto strategy = make_strategy(options.strategy, space, options.seed);
  if (!strategy) return {{}, strategy.error()};
  std::vector<Evaluation> prior;
  if (bucket) {
    auto p = trace.bucket_prior(*bucket, space, options.resume);
    if (!p) return {{}, p.error()};
    prior = std::move(*p);
  } else {
    prior = std::move(trace.prior);
  }
  ReplayEvaluator evaluator(
      rec, options.noise ? std::optional<std::uint64_t>(options.seed) : std::nullopt);
  Progress progress("tune " + options.strategy + (label.empty() ? "" : " " + label),
                    budget.evaluations);
  TuneRequest request;
  request.space = &space;
  request.strategy = strategy->get();
  request.evaluator = &evaluator;
  request.budget = budget;
  request.prior = std::move(prior);
  request.seeds = seed_points(space, seeds);
  request.observer = [&](const Evaluation& e, std::size_t index, const Evaluation* best) {
    trace.record(e, space, bucket);
    progress.evaluated(index, e, best);
  };
  Replayed out{run_tuner(std::move(request)), std::nullopt};
  progress.finish();
  return out;
}

}  // namespace

int tune_replay(const TuneOptions& options, std::optional<Report>* report_out) {
  auto budget = tune_budget(options);
  if (!budget) return report(budget.error());
  auto recs = io::read_recordings(options.replay);
  if (!recs) return report(recs.error());
  std::vector<RecordedSpace> spaces;
  for (const auto& part : recs->parts) {
    spaces.emplace_back(part.recording);
    if (spaces.back().size() == 0)
      return report(make_error(
          "the recording holds no configuration" +
              (part.bucket_label.empty() ? std::string() : " of bucket " + part.bucket_label),
          {options.replay}));
  }
  const Recording& first = recs->parts.front().recording;
  io::TraceHeader header;
  header.kernel = first.kernel;
  header.device = first.device.empty() ? "replay" : first.device + " (replay)";
  header.dims = first.dims;
  header.strategy = options.strategy;
  header.seed = options.seed;
  header.dispatch_by = recs->by;
  header.buckets = recs->buckets;
  // A replay compiles nothing: its header names no compiler, and none is checked.
  auto trace = recs->buckets.empty() ? setup_trace(options, header, spaces.front(), "")
                                     : setup_bucket_trace(options, header, "");
  if (!trace) return report(trace.error());

  Report r;
  r.kind = ReportKind::tune;
  r.tool = std::string("kernelevo ") + KERNELEVO_VERSION;
  r.created = utc_timestamp();
  r.device = first.device;
  r.mode = "replay";
  json buckets = json::array();
  bool all_passed = true;
  BucketWinners won;  // of the buckets replayed so far
  for (std::size_t i = 0; i < recs->parts.size(); ++i) {
    const io::RecordingPart& part = recs->parts[i];
    const std::vector<BucketSeed> seeds =
        part.bucket ? won.nearest(recs->buckets[*part.bucket]) : std::vector<BucketSeed>{};
    const Replayed done = replay_search(options, *budget, part.recording, spaces[i], *trace,
                                        part.bucket, part.bucket_label, seeds);
    if (part.bucket && done.result.best)
      won.add(recs->buckets[*part.bucket], spaces[i].to_params(done.result.best->point));
    if (done.error) return report(*done.error);
    if (trace->write_error) return report(*trace->write_error);
    all_passed = all_passed && done.result.best.has_value();
    r.kernels.push_back(
        replay_row(options, part.recording, spaces[i], done.result, part.bucket_label));
    if (options.format == "json")
      buckets.push_back(
          replay_json(options, part.recording, spaces[i], done.result, part.bucket_label));
    else
      print_text(options, part.recording, spaces[i], done.result, part.bucket_label);
  }
  if (report_out != nullptr) *report_out = std::move(r);
  if (options.format == "json")
    std::cout << (recs->buckets.empty() ? buckets.front() : json{{"buckets", buckets}}).dump(2)
              << '\n';
  return all_passed ? 0 : static_cast<int>(ExitCode::failure);
}

}  // namespace kev::cli
