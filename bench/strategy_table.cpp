// For each strategy, recorded space and budget: the mean over seeds of optimum_time /
// found_time (1.0 = the space's optimum found), with a 95% confidence interval.
// Usage: kernelevo_strategy_table [--seeds N] [--strategies a,b] [--budgets 25,50]
//                                 [--transfer N] [--csv FILE] GROUP=FILE[,FILE...] ...
// Each GROUP is reported separately and with its average over its spaces. --transfer N adds,
// for each strategy, a row "S+seeded" whose searches first evaluate the optima of N other
// spaces of the group (one kernel on other GPUs; the next N in the group's order, wrapping):
// how much starting from a related search's winner helps, as tune starts a bucket's search
// from its nearest buckets' winners (kBucketSeeds of them).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/recorded_space.h"
#include "core/replay_evaluator.h"
#include "core/strategy.h"
#include "core/tuner.h"
#include "io/replay_reader.h"

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

struct Space {
  std::string group;
  std::string name;
  kev::Recording recording;
  std::unique_ptr<kev::RecordedSpace> space;
  double optimum_us = 0;
  kev::ParamSet optimum;          // the fastest passed point's parameters
  std::vector<kev::Point> seeds;  // --transfer: the group's other optima in this space
};

kev::ParamSet optimum_params(const Space& s) {
  const kev::RecordedPoint* best = nullptr;
  for (const auto& p : s.recording.points())
    if (p.outcome.passed() && p.outcome.time_us &&
        (best == nullptr || *p.outcome.time_us < *best->outcome.time_us))
      best = &p;
  return best != nullptr ? s.space->to_params(best->point) : kev::ParamSet{};
}

struct Stat {
  double mean = 0, half_width = 0;
};

Stat stat_of(const std::vector<double>& xs) {
  Stat s;
  const double n = static_cast<double>(xs.size());
  for (double x : xs) s.mean += x / n;
  double var = 0;
  for (double x : xs) var += (x - s.mean) * (x - s.mean);
  var /= std::max(1.0, n - 1);
  // 95% two-sided Student t, approximated by 1.96 + 2.4/(n-1) (2.01 at n = 50).
  s.half_width = (1.96 + 2.4 / std::max(1.0, n - 1)) * std::sqrt(var / n);
  return s;
}

// quality[b] for one run: optimum / best found within the first budgets[b] evaluations.
std::vector<double> run_one(const Space& s, const std::string& strategy, std::uint64_t seed,
                            const std::vector<std::uint64_t>& budgets, bool seeded) {
  auto strat = kev::make_strategy(strategy, *s.space, seed);
  if (!strat) {
    std::cerr << strat.error().to_string() << '\n';
    std::exit(2);
  }
  kev::ReplayEvaluator evaluator(s.recording);
  std::vector<double> quality(budgets.size(), 0.0);
  double best = INFINITY;
  kev::TuneRequest req;
  req.space = s.space.get();
  req.strategy = strat->get();
  req.evaluator = &evaluator;
  req.budget.evaluations = budgets.back();
  if (seeded) req.seeds = s.seeds;
  req.observer = [&](const kev::Evaluation& e, std::size_t index, const kev::Evaluation*) {
    if (e.outcome.passed() && e.outcome.time_us) best = std::min(best, *e.outcome.time_us);
    for (std::size_t b = 0; b < budgets.size(); ++b)
      if (index + 1 <= budgets[b]) quality[b] = std::isfinite(best) ? s.optimum_us / best : 0.0;
  };
  kev::run_tuner(std::move(req));
  // A space exhausted before a budget keeps the quality it had at exhaustion.
  for (std::size_t b = 1; b < budgets.size(); ++b)
    quality[b] = std::max(quality[b], quality[b - 1]);
  return quality;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seeds = 50;
  std::vector<std::string> strategies{"auto", "local", "evolve", "anneal", "random"};
  std::vector<std::uint64_t> budgets{25, 50, 100, 200, 400};
  std::string csv_path;
  std::size_t transfer = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seeds")
      seeds = std::stoull(next());
    else if (a == "--strategies")
      strategies = split(next(), ',');
    else if (a == "--budgets") {
      budgets.clear();
      for (const auto& b : split(next(), ',')) budgets.push_back(std::stoull(b));
    } else if (a == "--csv")
      csv_path = next();
    else if (a == "--transfer")
      transfer = std::stoull(next());
    else {
      const auto eq = a.find('=');
      if (eq == std::string::npos) {
        std::cerr << "expected GROUP=FILE[,FILE...], got " << a << '\n';
        return 2;
      }
      groups.emplace_back(a.substr(0, eq), split(a.substr(eq + 1), ','));
    }
  }
  std::vector<Space> spaces;
  for (const auto& [group, files] : groups)
    for (const auto& file : files) {
      auto rec = kev::io::read_recording(file);
      if (!rec) {
        std::cerr << rec.error().to_string() << '\n';
        return 2;
      }
      Space s;
      s.group = group;
      s.name = file.substr(file.find_last_of('/') + 1);
      s.name = s.name.substr(0, s.name.find(".json"));
      s.recording = std::move(*rec);
      s.space = std::make_unique<kev::RecordedSpace>(s.recording);
      s.optimum_us = s.recording.optimum_us().value_or(0);
      s.optimum = optimum_params(s);
      spaces.push_back(std::move(s));
    }
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    std::vector<std::size_t> group;  // the group's members, starting after space i
    for (std::size_t k = 1; k < spaces.size(); ++k)
      if (spaces[(i + k) % spaces.size()].group == spaces[i].group)
        group.push_back((i + k) % spaces.size());
    for (std::size_t k = 0; k < group.size() && k < transfer; ++k)
      if (auto p = spaces[i].space->from_params(spaces[group[k]].optimum))
        spaces[i].seeds.push_back(*p);
  }
  // Each strategy, then with --transfer each again seeded ("S+seeded").
  std::vector<std::pair<std::string, bool>> runs;
  for (const auto& st : strategies) runs.emplace_back(st, false);
  if (transfer > 0)
    for (const auto& st : strategies) runs.emplace_back(st, true);
  const auto run_name = [&](std::size_t st) {
    return runs[st].first + (runs[st].second ? "+seeded" : "");
  };

  // results[strategy][space][seed][budget]
  std::vector<std::vector<std::vector<std::vector<double>>>> results(
      runs.size(), std::vector<std::vector<std::vector<double>>>(
                       spaces.size(), std::vector<std::vector<double>>(seeds)));
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::size_t job = 0;
      for (std::size_t st = 0; st < runs.size(); ++st)
        for (std::size_t sp = 0; sp < spaces.size(); ++sp)
          for (std::uint64_t seed = 0; seed < seeds; ++seed, ++job)
            if (job % threads == t)
              results[st][sp][seed] =
                  run_one(spaces[sp], runs[st].first, seed + 1, budgets, runs[st].second);
    });
  for (auto& th : pool) th.join();

  std::FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (csv) std::fprintf(csv, "group,space,strategy,budget,mean,ci_low,ci_high,seeds\n");
  std::vector<std::string> group_names;
  for (const auto& g : groups) group_names.push_back(g.first);
  for (const auto& group : group_names) {
    std::printf("\n### %s\n\n| space | strategy |", group.c_str());
    for (auto b : budgets) std::printf(" %llu |", static_cast<unsigned long long>(b));
    std::printf("\n|---|---|");
    for (std::size_t b = 0; b < budgets.size(); ++b) std::printf("---|");
    std::printf("\n");
    std::vector<std::size_t> members;
    for (std::size_t sp = 0; sp < spaces.size(); ++sp)
      if (spaces[sp].group == group) members.push_back(sp);
    auto row = [&](const std::string& label, std::size_t st, const std::vector<std::size_t>& sps) {
      std::printf("| %s | %s |", label.c_str(), run_name(st).c_str());
      for (std::size_t b = 0; b < budgets.size(); ++b) {
        std::vector<double> per_seed(seeds, 0.0);  // mean over the spaces, per seed
        for (std::uint64_t seed = 0; seed < seeds; ++seed) {
          for (auto sp : sps) per_seed[seed] += results[st][sp][seed][b];
          per_seed[seed] /= static_cast<double>(sps.size());
        }
        const Stat s = stat_of(per_seed);
        std::printf(" %.3f ± %.3f |", s.mean, s.half_width);
        if (csv)
          std::fprintf(csv, "%s,%s,%s,%llu,%.5f,%.5f,%.5f,%llu\n", group.c_str(), label.c_str(),
                       run_name(st).c_str(), static_cast<unsigned long long>(budgets[b]), s.mean,
                       s.mean - s.half_width, s.mean + s.half_width,
                       static_cast<unsigned long long>(seeds));
      }
      std::printf("\n");
    };
    for (auto sp : members)
      for (std::size_t st = 0; st < runs.size(); ++st) row(spaces[sp].name, st, {sp});
    for (std::size_t st = 0; st < runs.size(); ++st) row("**average**", st, members);
  }
  if (csv) std::fclose(csv);
  return 0;
}
