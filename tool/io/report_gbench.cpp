#include "io/report_gbench.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace kev::io {

std::string report_gbench(const Report& r, const std::string& host_name) {
  using json = nlohmann::ordered_json;
  json context;
  context["date"] = r.created;
  context["host_name"] = host_name;
  context["executable"] = "kernelevo " + std::string(to_string(r.kind));
  context["num_cpus"] = 1;
  context["mhz_per_cpu"] = 0;
  context["cpu_scaling_enabled"] = false;
  context["caches"] = json::array();
  context["library_build_type"] = "release";
  context["kernelevo_device"] = r.device;
  context["kernelevo_arch"] = r.arch;
  json benchmarks = json::array();
  for (const auto& k : r.kernels) {
    if (!k.time_us || !std::isfinite(*k.time_us)) continue;
    const double us = std::round(*k.time_us * 1000.0) / 1000.0;
    json b;
    b["name"] = kernel_label(k) + "/" + k.arch + "/" + k.device;
    b["family_index"] = benchmarks.size();
    b["per_family_instance_index"] = 0;
    b["run_name"] = b["name"];
    b["run_type"] = "iteration";
    b["repetitions"] = 1;
    b["repetition_index"] = 0;
    b["threads"] = 1;
    b["iterations"] = k.samples > 0 ? k.samples : 1;
    b["real_time"] = us;
    b["cpu_time"] = us;
    b["time_unit"] = "us";
    if (k.baseline_us) b["baseline_us"] = std::round(*k.baseline_us * 1000.0) / 1000.0;
    if (k.speedup) b["speedup"] = std::round(*k.speedup * 1000.0) / 1000.0;
    b["verdict"] = to_string(k.verdict);
    benchmarks.push_back(b);
  }
  json j;
  j["context"] = context;
  j["benchmarks"] = benchmarks;
  return j.dump(2) + "\n";
}

}  // namespace kev::io
