#include "io/t4_results.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "io/json_value.h"

namespace kev::io {

namespace {

Disposition disposition_of(const std::string& invalidity) {
  if (invalidity == "correct") return Disposition::passed;
  if (invalidity == "compile") return Disposition::compile_failed;
  if (invalidity == "runtime") return Disposition::launch_failed;
  if (invalidity == "correctness") return Disposition::incorrect;
  return Disposition::invalid;  // "constraints" and anything unknown
}

double unit_to_us(const std::string& unit) {
  if (unit == "s" || unit == "seconds") return 1e6;
  if (unit == "us" || unit == "microseconds") return 1.0;
  if (unit == "ns" || unit == "nanoseconds") return 1e-3;
  return 1e3;  // milliseconds, the format's default (spelled "miliseconds" in the wild)
}

}  // namespace

Result<Recording> recording_from_t4(const nlohmann::ordered_json& doc, const std::string& path) {
  if (!doc.contains("results") || !doc.at("results").is_array())
    return make_error("not a T4 results file (needs a results array)", {path});
  const double scale = unit_to_us(
      doc.contains("metadata") ? doc.at("metadata").value("timeunit", std::string{}) : "");
  Recording rec;
  rec.format = "t4";
  const auto& results = doc.at("results");
  // Dimensions: parameter names in the order of the first configuration; values sorted
  // (numerically where numeric) so adjacent values are neighbours for local moves.
  std::vector<std::string> names;
  std::vector<std::vector<Value>> values;
  std::vector<std::unordered_set<Value, ValueHash>> seen;  // values[d], for repeats
  for (const auto& r : results) {
    if (!r.contains("configuration") || !r.at("configuration").is_object())
      return make_error("a result lacks its configuration object", {path});
    for (const auto& [name, v] : r.at("configuration").items()) {
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        names.push_back(name);
        values.emplace_back();
        seen.emplace_back();
        it = names.end() - 1;
      }
      const auto d = static_cast<std::size_t>(it - names.begin());
      Value value = value_from_json(v);
      if (seen[d].insert(value).second) values[d].push_back(std::move(value));
    }
  }
  std::vector<std::unordered_map<std::string, std::uint32_t>> index_of(names.size());
  for (std::size_t d = 0; d < names.size(); ++d) {
    auto& vs = values[d];
    const bool numeric =
        std::all_of(vs.begin(), vs.end(), [](const Value& v) { return !v.is_string(); });
    if (numeric)
      std::sort(vs.begin(), vs.end(),
                [](const Value& a, const Value& b) { return a.as_double() < b.as_double(); });
    for (std::size_t i = 0; i < vs.size(); ++i)
      index_of[d].emplace(vs[i].to_string(), static_cast<std::uint32_t>(i));
    rec.dims.push_back({names[d], vs});
  }
  std::size_t n = 0;
  for (const auto& r : results) {
    ++n;
    const auto& config = r.at("configuration");
    Point p(names.size());
    for (std::size_t d = 0; d < names.size(); ++d) {
      const auto it = config.find(names[d]);
      if (it == config.end())
        return make_error("result " + std::to_string(n) + " lacks parameter '" + names[d] + "'",
                          {path});
      p[d] = index_of[d].at(value_from_json(*it).to_string());
    }
    Outcome out;
    out.disposition = disposition_of(r.value("invalidity", std::string{"correct"}));
    // A time that is negative or not finite (also once in microseconds) would pass any gate.
    const auto us = [&](double t, double unit, const char* what) -> Result<double> {
      if (!usable_time(t) || !usable_time(t * unit))
        return make_error("result " + std::to_string(n) + ": " + what + " is " + time_text(t) +
                              "; times must be finite and not negative",
                          {path});
      return t * unit;
    };
    if (out.disposition == Disposition::passed) {
      if (r.contains("times") && r.at("times").contains("runtimes"))
        for (const auto& t : r.at("times").at("runtimes")) {
          if (!t.is_number()) continue;
          auto sample = us(t.get<double>(), scale, "a runtime");
          if (!sample) return sample.error();
          out.samples_us.push_back(*sample);
        }
      if (r.contains("measurements"))
        for (const auto& m : r.at("measurements"))
          if (m.value("name", std::string{}) == "time" && m.contains("value") &&
              m.at("value").is_number()) {
            const std::string unit = m.value("unit", std::string{});
            auto t = us(m.at("value").get<double>(), unit.empty() ? scale : unit_to_us(unit),
                        "the time measurement");
            if (!t) return t.error();
            out.time_us = *t;
          }
      if (!out.time_us && !out.samples_us.empty()) {
        double sum = 0;
        for (double s : out.samples_us) sum += s;
        out.time_us = sum / static_cast<double>(out.samples_us.size());
      }
      if (!out.time_us) {
        out.disposition = Disposition::invalid;
        out.detail = "no time recorded";
      }
    } else {
      out.detail = r.value("invalidity", std::string{});
    }
    rec.add(std::move(p), std::move(out));
  }
  return rec;
}

}  // namespace kev::io
