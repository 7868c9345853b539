#include "io/report_json.h"

#include <cmath>
#include <limits>
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

json kernel_json(const KernelReport& k) {
  json j;
  j["id"] = k.id;
  if (!k.bucket.empty()) j["bucket"] = k.bucket;
  j["source"] = k.source;
  if (k.line > 0) j["line"] = k.line;
  j["arch"] = k.arch;
  j["device"] = k.device;
  j["verdict"] = to_string(k.verdict);
  j["params"] = params_to_json<json>(k.params);
  if (!k.base_params.empty()) j["base_params"] = params_to_json<json>(k.base_params);
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

// The string at `key` of `j` (absent: empty); another type is an error naming `where`.
Result<std::string> string_field(const json& j, const char* key, const std::string& where,
                                 const std::string& path) {
  const auto it = j.find(key);
  if (it == j.end()) return std::string{};
  if (!it->is_string())
    return make_error(where + key + " must be a string, not " + it->type_name(), at(path));
  return it->get<std::string>();
}

// The whole number from 0 to INT_MAX at `key` of `j` (absent: `absent`); anything else is an
// error naming `where` (a float too large for an int would be undefined behaviour to convert).
Result<int> count_field(const json& j, const char* key, int absent, const std::string& where,
                        const std::string& path) {
  const auto it = j.find(key);
  if (it == j.end()) return absent;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
      it->get<std::int64_t>() > std::numeric_limits<int>::max() ||
      (it->is_number_unsigned() && it->get<std::uint64_t>() > std::numeric_limits<int>::max()))
    return make_error(where + key + " must be a whole number from 0 to " +
                          std::to_string(std::numeric_limits<int>::max()) + ", not " + it->dump(),
                      at(path));
  return static_cast<int>(it->get<std::int64_t>());
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
  const std::string field = where + " (" + k.id + "): ";
  auto verdict_text = string_field(j, "verdict", field, path);
  if (!verdict_text) return verdict_text.error();
  const auto verdict = parse_kernel_verdict(*verdict_text);
  if (!verdict) return make_error(where + " (" + k.id + ") has an unknown verdict", at(path));
  k.verdict = *verdict;
  for (const auto& [key, into] : {std::pair{"source", &k.source},
                                  {"arch", &k.arch},
                                  {"device", &k.device},
                                  {"strategy", &k.strategy},
                                  {"evidence", &k.evidence}}) {
    auto value = string_field(j, key, field, path);
    if (!value) return value.error();
    *into = std::move(*value);
  }
  for (const auto& [key, into] : {std::pair{"line", &k.line}, {"samples", &k.samples}}) {
    auto value = count_field(j, key, 0, field, path);
    if (!value) return value.error();
    *into = *value;
  }
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
  k.speedup = number(j, "speedup");
  k.roofline_fraction = number(j, "roofline_fraction");
  if (j.contains("evaluations")) {
    auto evaluations = count_field(j, "evaluations", 0, field, path);
    if (!evaluations) return evaluations.error();
    k.evaluations = *evaluations;
  }
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
  const auto schema = j.is_object() ? string_field(j, "schema", "", path) : Result<std::string>("");
  if (!schema || *schema != kReportSchema)
    return make_error("not a kernelevo report (lacks \"schema\": \"kernelevo-report\")", at(path));
  if (!j.contains("version") || !j.at("version").is_number_integer())
    return make_error("report lacks its version", at(path));
  const json& version = j.at("version");
  const auto kVersion = static_cast<std::int64_t>(Report::kVersion);
  const bool supported =
      version.is_number_unsigned()
          ? version.get<std::uint64_t>() >= 1 &&
                version.get<std::uint64_t>() <= static_cast<std::uint64_t>(kVersion)
          : version.get<std::int64_t>() >= 1 && version.get<std::int64_t>() <= kVersion;
  if (!supported)
    return make_error("report version " + version.dump() +
                          " is not supported (this kernelevo reads version " +
                          std::to_string(Report::kVersion) + ")",
                      at(path));
  Report r;
  auto kind_text = string_field(j, "kind", "report field ", path);
  if (!kind_text) return kind_text.error();
  const auto kind = parse_report_kind(*kind_text);
  if (!kind) return make_error("report has an unknown kind (tune, check or compare)", at(path));
  r.kind = *kind;
  for (const auto& [key, into] : {std::pair{"tool", &r.tool},
                                  {"created", &r.created},
                                  {"arch", &r.arch},
                                  {"device", &r.device},
                                  {"mode", &r.mode},
                                  {"base_ref", &r.base_ref}}) {
    auto value = string_field(j, key, "report field ", path);
    if (!value) return value.error();
    *into = std::move(*value);
  }
  r.threshold = number(j, "threshold");
  r.min_abs_us = number(j, "min_abs_us");
  if (j.contains("rounds")) {
    auto rounds = count_field(j, "rounds", 0, "report field ", path);
    if (!rounds) return rounds.error();
    r.rounds = *rounds;
  }
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
