#include "io/kernel_tuner_cache.h"

#include <unordered_map>

#include "io/json_value.h"

namespace kev::io {

namespace {

std::optional<Disposition> failure_disposition(const std::string& s) {
  if (s == "InvalidConfig") return Disposition::invalid;
  if (s == "CompilationFailedConfig") return Disposition::compile_failed;
  if (s == "RuntimeFailedConfig") return Disposition::launch_failed;
  return std::nullopt;
}

}  // namespace

Result<Recording> recording_from_kernel_tuner(const nlohmann::ordered_json& doc,
                                              const std::string& path) {
  using json = nlohmann::ordered_json;
  if (!doc.contains("tune_params_keys") || !doc.contains("tune_params") || !doc.contains("cache"))
    return make_error("not a Kernel Tuner cachefile (needs tune_params_keys, tune_params, cache)",
                      {path});
  Recording rec;
  rec.format = "kernel_tuner";
  rec.kernel = doc.value("kernel_name", std::string{});
  rec.device = doc.value("device_name", std::string{});
  const json& keys = doc.at("tune_params_keys");
  const json& params = doc.at("tune_params");
  std::vector<std::unordered_map<std::string, std::uint32_t>> index_of;
  for (const auto& key : keys) {
    const auto name = key.get<std::string>();
    if (!params.contains(name))
      return make_error("tune_params lacks '" + name + "' listed in tune_params_keys", {path});
    Dimension dim{name, {}};
    index_of.emplace_back();
    for (const auto& v : params.at(name)) {
      index_of.back().emplace(value_from_json(v).to_string(),
                              static_cast<std::uint32_t>(dim.values.size()));
      dim.values.push_back(value_from_json(v));
    }
    rec.dims.push_back(std::move(dim));
  }
  for (const auto& item : doc.at("cache").items()) {
    // (named, not a structured binding: clang before 16 cannot capture those, as `us` does)
    const std::string& config = item.key();
    const json& entry = item.value();
    Point p(rec.dims.size());
    for (std::size_t d = 0; d < rec.dims.size(); ++d) {
      const auto it = entry.find(rec.dims[d].name);
      if (it == entry.end())
        return make_error("cache entry '" + config + "' lacks parameter '" + rec.dims[d].name + "'",
                          {path});
      const auto found = index_of[d].find(value_from_json(*it).to_string());
      if (found == index_of[d].end())
        return make_error("cache entry '" + config + "': value " + it->dump() + " of '" +
                              rec.dims[d].name + "' is not in tune_params",
                          {path});
      p[d] = found->second;
    }
    Outcome out;
    const auto time = entry.find("time");
    if (time == entry.end()) return make_error("cache entry '" + config + "' has no time", {path});
    if (time->is_string()) {
      const auto d = failure_disposition(time->get<std::string>());
      if (!d)
        return make_error("cache entry '" + config + "': unknown time value " + time->dump(),
                          {path});
      out.disposition = *d;
      out.detail = time->get<std::string>();
    } else if (time->is_number()) {
      // Milliseconds; a time that is negative or not finite (also once in microseconds) would
      // pass any gate.
      const auto us = [&](const json& t, const char* what) -> Result<double> {
        const double ms = t.get<double>();
        if (!usable_time(ms) || !usable_time(ms * 1000.0))
          return make_error("cache entry '" + config + "': " + what + " is " + time_text(ms) +
                                "; times must be finite and not negative",
                            {path});
        return ms * 1000.0;
      };
      out.disposition = Disposition::passed;
      auto t = us(*time, "time");
      if (!t) return t.error();
      out.time_us = *t;
      const auto times = entry.find("times");
      if (times != entry.end() && times->is_array())
        for (const auto& sample : *times) {
          if (!sample.is_number()) continue;
          auto s = us(sample, "a value of times");
          if (!s) return s.error();
          out.samples_us.push_back(*s);
        }
    } else {
      return make_error("cache entry '" + config + "': time is neither a number nor a string",
                        {path});
    }
    rec.add(std::move(p), std::move(out));
  }
  return rec;
}

}  // namespace kev::io
