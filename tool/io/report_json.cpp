#include "io/report_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/json_parse.h"
#include "io/json_value.h"

namespace kev::io {

namespace {

using json = nlohmann::ordered_json;

// Rounds for readable, stable output: times to nanoseconds, ratios to 1e-4.
double round_to(double x, double unit) { return std::round(x / unit) * unit; }

void put(json& j, const char* key, const std::optional<double>& v, double unit) {
  if (v && std::isfinite(*v)) j[key] = round_to(*v, unit);
}

json params_json(const ParamSet& params) {
  json j = json::object();
  for (const auto& [name, v] : params) j[name] = value_to_json<json>(v);
  return j;
}

json kernel_json(const KernelReport& k) {
  json j;
  j["id"] = k.id;
  if (!k.bucket.empty()) j["bucket"] = k.bucket;
  j["source"] = k.source;
  if (k.line > 0) j["line"] = k.line;
  j["arch"] = k.arch;
  j["device"] = k.device;
  j["verdict"] = to_string(k.verdict);
  j["params"] = params_json(k.params);
  if (!k.base_params.empty()) j["base_params"] = params_json(k.base_params);
  put(j, "baseline_us", k.baseline_us, 1e-3);
  put(j, "time_us", k.time_us, 1e-3);
  put(j, "ratio", k.ratio, 1e-4);
  if (k.ratio_ci_low && k.ratio_ci_high)
    j["ratio_ci"] =
        json::array({round_to(*k.ratio_ci_low, 1e-4), round_to(*k.ratio_ci_high, 1e-4)});
  if (k.p_value) j["p_value"] = *k.p_value;
  if (k.samples > 0) j["samples"] = k.samples;
  put(j, "speedup", k.speedup, 1e-3);
  put(j, "roofline_fraction", k.roofline_fraction, 1e-4);
  if (!k.strategy.empty()) j["strategy"] = k.strategy;
  if (k.evaluations) j["evaluations"] = *k.evaluations;
  j["evidence"] = k.evidence;
  return j;
}

SourceLocation at(const std::string& path) { return SourceLocation{path, 0, 0}; }

std::optional<double> number(const json& j, const char* key) {
  if (j.contains(key) && j.at(key).is_number()) return j.at(key).get<double>();
  return std::nullopt;
}

Result<KernelReport> kernel_from_json(const json& j, const std::string& path, std::size_t index) {
  const std::string where = "kernels[" + std::to_string(index) + "]";
  if (!j.is_object()) return make_error(where + " is not an object", at(path));
  KernelReport k;
  if (!j.contains("id") || !j.at("id").is_string())
    return make_error(where + " lacks its id", at(path));
  k.id = j.at("id").get<std::string>();
  if (j.contains("bucket") && j.at("bucket").is_string())
    k.bucket = j.at("bucket").get<std::string>();
  const auto verdict = parse_kernel_verdict(j.value("verdict", std::string{}));
  if (!verdict) return make_error(where + " (" + k.id + ") has an unknown verdict", at(path));
  k.verdict = *verdict;
  k.source = j.value("source", std::string{});
  k.line = j.value("line", 0);
  k.arch = j.value("arch", std::string{});
  k.device = j.value("device", std::string{});
  for (const char* key : {"params", "base_params"}) {
    if (!j.contains(key)) continue;
    if (!j.at(key).is_object())
      return make_error(where + "." + key + " is not an object", at(path));
    auto& into = std::string(key) == "params" ? k.params : k.base_params;
    for (const auto& [name, v] : j.at(key).items()) into[name] = value_from_json(v);
  }
  k.baseline_us = number(j, "baseline_us");
  k.time_us = number(j, "time_us");
  k.ratio = number(j, "ratio");
  if (j.contains("ratio_ci") && j.at("ratio_ci").is_array() && j.at("ratio_ci").size() == 2 &&
      j.at("ratio_ci")[0].is_number() && j.at("ratio_ci")[1].is_number()) {
    k.ratio_ci_low = j.at("ratio_ci")[0].get<double>();
    k.ratio_ci_high = j.at("ratio_ci")[1].get<double>();
  }
  k.p_value = number(j, "p_value");
  k.samples = j.value("samples", 0);
  k.speedup = number(j, "speedup");
  k.roofline_fraction = number(j, "roofline_fraction");
  k.strategy = j.value("strategy", std::string{});
  if (j.contains("evaluations") && j.at("evaluations").is_number_integer())
    k.evaluations = j.at("evaluations").get<int>();
  k.evidence = j.value("evidence", std::string{});
  return k;
}

}  // namespace

std::string report_to_json(const Report& r) {
  json j;
  j["schema"] = kReportSchema;
  j["version"] = Report::kVersion;
  j["kind"] = to_string(r.kind);
  j["tool"] = r.tool;
  j["created"] = r.created;
  j["arch"] = r.arch;
  j["device"] = r.device;
  if (!r.mode.empty()) j["mode"] = r.mode;
  if (!r.base_ref.empty()) j["base_ref"] = r.base_ref;
  put(j, "threshold", r.threshold, 1e-6);
  put(j, "min_abs_us", r.min_abs_us, 1e-6);
  if (r.rounds) j["rounds"] = *r.rounds;
  json summary;
  summary["kernels"] = r.kernels.size();
  summary["failures"] = count_failures(r);
  json counts = json::object();
  for (const auto& [verdict, n] : count_verdicts(r)) counts[to_string(verdict)] = n;
  summary["counts"] = counts;
  summary["text"] = summary_line(r);
  j["summary"] = summary;
  j["kernels"] = json::array();
  for (const auto& k : r.kernels) j["kernels"].push_back(kernel_json(k));
  return j.dump(2) + "\n";
}

bool looks_like_report_json(const std::string& text) {
  return text.find("\"kernelevo-report\"") != std::string::npos;
}

Result<Report> parse_report_json(const std::string& text, const std::string& path) {
  auto parsed = parse_untrusted_json<json>(text, {path});
  if (!parsed) return parsed.error();
  const json& j = *parsed;
  if (!j.is_object() || j.value("schema", std::string{}) != kReportSchema)
    return make_error("not a kernelevo report (lacks \"schema\": \"kernelevo-report\")", at(path));
  if (!j.contains("version") || !j.at("version").is_number_integer())
    return make_error("report lacks its version", at(path));
  const int version = j.at("version").get<int>();
  if (version > Report::kVersion || version < 1)
    return make_error("report version " + std::to_string(version) +
                          " is not supported (this kernelevo reads version " +
                          std::to_string(Report::kVersion) + ")",
                      at(path));
  Report r;
  const auto kind = parse_report_kind(j.value("kind", std::string{}));
  if (!kind) return make_error("report has an unknown kind (tune, check or compare)", at(path));
  r.kind = *kind;
  r.tool = j.value("tool", std::string{});
  r.created = j.value("created", std::string{});
  r.arch = j.value("arch", std::string{});
  r.device = j.value("device", std::string{});
  r.mode = j.value("mode", std::string{});
  r.base_ref = j.value("base_ref", std::string{});
  r.threshold = number(j, "threshold");
  r.min_abs_us = number(j, "min_abs_us");
  if (j.contains("rounds") && j.at("rounds").is_number_integer())
    r.rounds = j.at("rounds").get<int>();
  if (!j.contains("kernels") || !j.at("kernels").is_array())
    return make_error("report lacks its kernels array", at(path));
  std::size_t index = 0;
  for (const auto& kj : j.at("kernels")) {
    auto k = kernel_from_json(kj, path, index++);
    if (!k) return k.error();
    r.kernels.push_back(std::move(*k));
  }
  return r;
}

}  // namespace kev::io
