#include "cli/tune_table.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/progress.h"
#include "core/report.h"
#include "io/device_json.h"
#include "io/json_value.h"
#include "io/resources_json.h"

namespace kev::cli {

namespace {

const std::vector<Resource> kAllResources{Resource::registers, Resource::shared_bytes,
                                          Resource::local_bytes};

using json = nlohmann::ordered_json;

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

// The device a row was tuned on (the first of several sharing one search).
const DeviceInfo* row_device(const std::vector<TuneDevice>& gpus, const KernelRow& row) {
  for (const auto& g : gpus)
    if (!row.gpus.empty() && g.index == row.gpus.front()) return &g.info;
  return gpus.empty() ? nullptr : &gpus.front().info;
}

std::string time_cell(const std::optional<double>& us) {
  return us ? format_time_us(*us, TimeDigits::compact) : "-";
}

}  // namespace

std::string lock_text(const KernelRow& row, const std::string& lockfile) {
  switch (row.lock) {
    case LockAction::none:
      return "";
    case LockAction::locked:
      return (row.defaults_locked ? "the source defaults (no configuration was faster) locked in "
                                  : "locked in ") +
             lockfile + (row.sized == false ? ", compiled without its size define" : "");
    case LockAction::already_locked:
      return "already locked";
    case LockAction::kept:
      return "kept the locked winner (" + params_text(row.kept_params) + ", " +
             format_time_us(row.kept_us, TimeDigits::compact) + " now): not faster with confidence";
    case LockAction::not_locked:
      return row.winner ? "not locked"
                        : "not locked: no configuration was faster than the source defaults";
  }
  return "";
}

void print_tune_text(const std::vector<TuneDevice>& gpus, const std::vector<KernelRow>& rows,
                     const std::string& lockfile) {
  for (const auto& g : gpus) {
    const DeviceInfo& dev = g.info;
    std::printf("device%s: %s (%s, %d SMs), copy %.0f GB/s, read %.0f GB/s\n",
                gpus.size() > 1 ? (" " + std::to_string(g.index)).c_str() : "", dev.name.c_str(),
                dev.arch.c_str(), dev.sms, dev.copy_gbps, dev.read_gbps);
  }
  // A bucket's row names it after the kernel ("softmax_rows cols [0, 2048)"): the column
  // widens to the longest name, so the columns stay aligned.
  const auto row_name = [](const KernelRow& r) {
    return r.bucket.empty() ? r.id : r.id + " " + r.bucket;
  };
  int name_width = 20;
  for (const auto& r : rows)
    name_width = std::max(name_width, static_cast<int>(row_name(r).size()));
  std::printf("%-*s %-7s %-22s %10s %10s %8s %8s %7s %6s %7s  %s\n", name_width, "kernel", "arch",
              "device", "baseline", "winner", "speedup", "GB/s", "%copy", "evals", "evals/s",
              "outcomes");
  for (const auto& r : rows) {
    std::string counts;
    for (const auto& [d, n] : r.counts)
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(d);
    const ProblemRow* first = r.problems.empty() ? nullptr : &r.problems.front();
    const DeviceInfo* dev = row_device(gpus, r);
    std::printf(
        "%-*s %-7s %-22s %10s %10s %8s %8s %7s %6llu %7s  %s\n", name_width, row_name(r).c_str(),
        dev != nullptr ? dev->arch.c_str() : "-", dev != nullptr ? dev->name.c_str() : "-",
        time_cell(r.baseline_us).c_str(), time_cell(r.winner_us).c_str(),
        r.baseline_us && r.winner_us ? speedup_text(*r.baseline_us / *r.winner_us).c_str() : "-",
        first && first->gbps ? fmt("%.0f", *first->gbps).c_str() : "-",
        first && first->copy_fraction ? fmt("%.1f%%", 100.0 * *first->copy_fraction).c_str() : "-",
        static_cast<unsigned long long>(r.evaluations),
        r.elapsed_s > 0 ? fmt("%.1f", static_cast<double>(r.evaluations) / r.elapsed_s).c_str()
                        : "-",
        counts.c_str());
    if (r.winner)
      std::printf("  winner: %s (%s)\n", params_text(*r.winner).c_str(),
                  lock_text(r, lockfile).c_str());
    if (!r.objectives.empty()) std::printf("  %s\n", r.objectives.c_str());
    if (!r.pareto.empty()) std::printf("  pareto front of time and resources:\n");
    for (const ParetoPoint& p : r.pareto)
      std::printf("    %10s  %s  %s\n", time_cell(p.time_us).c_str(),
                  resources_text(p.resources, kAllResources).c_str(),
                  params_text(p.params).c_str());
    if (gpus.size() > 1)
      std::printf("  tuned on GPU%s %s\n", r.gpus.size() > 1 ? "s" : "", gpu_list(r.gpus).c_str());
    if (!r.memcheck.empty()) std::printf("  memcheck: %s\n", r.memcheck.c_str());
    if (r.throttled > 0)
      std::printf("  warning: %llu runs saw the GPU throttle (last: %s); times may be slow\n",
                  static_cast<unsigned long long>(r.throttled), r.throttle.c_str());
    for (std::size_t i = 0; r.problems.size() > 1 && i < r.problems.size(); ++i) {
      const auto& p = r.problems[i];
      std::printf("  %-30s %12s %8s GB/s %7s of copy\n", p.problem.c_str(),
                  time_cell(p.time_us).c_str(), p.gbps ? fmt("%.0f", *p.gbps).c_str() : "-",
                  p.copy_fraction ? fmt("%.1f%%", 100.0 * *p.copy_fraction).c_str() : "-");
    }
    if (!r.failure.empty()) std::printf("  no winner: %s\n", r.failure.c_str());
  }
}

void print_tune_json(const std::vector<TuneDevice>& gpus, const TuneOptions& options,
                     const std::vector<KernelRow>& rows, const std::string& lockfile) {
  json j;
  j["device"] = io::device_to_json<json>(gpus.front().info);
  json devices = json::array();
  for (const auto& g : gpus) {
    json d = io::device_to_json<json>(g.info);
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
    if (!r.bucket.empty()) k["bucket"] = r.bucket;
    k["baseline_us"] = opt(r.baseline_us);
    k["winner_us"] = opt(r.winner_us);
    k["speedup"] =
        r.baseline_us && r.winner_us ? json(*r.baseline_us / *r.winner_us) : json(nullptr);
    json params = json::object();
    if (r.winner)
      for (const auto& [name, v] : *r.winner) params[name] = io::value_to_json<json>(v);
    k["winner"] = r.winner ? params : json(nullptr);
    if (r.sized) k["sized"] = *r.sized;
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
    k["lock"] = lock_text(r, lockfile);
    k["gpu"] = r.gpus.empty() ? json(nullptr) : json(r.gpus.front());
    k["gpus"] = r.gpus;
    if (!r.memcheck.empty()) k["memcheck"] = r.memcheck;
    k["throttled_runs"] = r.throttled;
    if (!r.throttle.empty()) k["throttle"] = r.throttle;
    if (!r.failure.empty()) k["failure"] = r.failure;
    if (!r.objectives.empty()) k["objectives"] = r.objectives;
    if (!r.pareto.empty()) {
      json front = json::array();
      for (const ParetoPoint& p : r.pareto) {
        json point_params = json::object();
        for (const auto& [name, v] : p.params) point_params[name] = io::value_to_json<json>(v);
        front.push_back({{"params", point_params},
                         {"time_us", p.time_us},
                         {"resources", io::resources_to_json<json>(p.resources)}});
      }
      k["pareto"] = front;
    }
    kernels.push_back(std::move(k));
  }
  j["kernels"] = kernels;
  std::cout << j.dump(2) << '\n';
}

}  // namespace kev::cli
