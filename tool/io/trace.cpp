#include "io/trace.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/params_text.h"
#include "core/report.h"
#include "core/runner.h"
#include "io/compressed_file.h"
#include "io/file_read.h"
#include "io/json_parse.h"
#include "io/json_value.h"
#include "io/resources_json.h"

namespace kev::io {

namespace {

using json = nlohmann::ordered_json;
constexpr const char* kFormat = "kernelevo-trace";
constexpr int kVersion = 1;

// The string at `key` of object `j` (absent or null: empty); another type is an error at `at`.
Result<std::string> string_field(const json& j, const char* key, const SourceLocation& at) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::string{};
  if (!it->is_string())
    return make_error(
        std::string("trace field '") + key + "' must be a string, not " + it->type_name(), at);
  return it->get<std::string>();
}

Result<TraceHeader> header_from_json(const json& j, const std::string& path) {
  const SourceLocation at{path, 1, 1};
  const auto format = j.is_object() ? string_field(j, "format", at) : Result<std::string>("");
  if (!format || *format != kFormat)
    return make_error("not a kernelevo trace (first line lacks format: \"kernelevo-trace\")", at);
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() ||
      version->get<std::int64_t>() != kVersion)
    return make_error("unsupported trace version " +
                          (version == j.end() ? std::string("null") : version->dump()) +
                          " (this kernelevo reads version 1)",
                      at);
  TraceHeader h;
  for (const auto& [key, field] : {std::pair{"kernel", &h.kernel},
                                   {"strategy", &h.strategy},
                                   {"device", &h.device},
                                   {"created", &h.created},
                                   {"tool", &h.tool},
                                   {"timing", &h.timing},
                                   {"compiler", &h.compiler}}) {
    auto value = string_field(j, key, at);
    if (!value) return value.error();
    *field = std::move(*value);
  }
  if (!h.compiler.empty() && h.compiler != "nvcc" && h.compiler != "nvrtc")
    return make_error("trace field 'compiler' must be \"nvcc\" or \"nvrtc\"", at);
  if (const auto flush = j.find("flush"); flush == j.end()) {
    h.flush = kFlushRevisionBeforeTracesSaid;
  } else if (!flush->is_number_unsigned() || flush->get<std::uint64_t>() < 1 ||
             flush->get<std::uint64_t>() > kMaxFlushRevision) {
    return make_error("trace field 'flush' must be a revision from 1 to " +
                          std::to_string(kMaxFlushRevision) + ", not " +
                          flush->dump().substr(0, 40),
                      at);
  } else {
    h.flush = flush->get<int>();
  }
  if (h.timing.empty()) {
    TimingOptions before_traces_said;
    before_traces_said.charge_writeback = false;
    h.timing = timing_method(before_traces_said);
  }
  if (const auto seed = j.find("seed"); seed != j.end()) {
    if (!seed->is_number_unsigned())
      return make_error(
          "trace field 'seed' must be an integer from 0 to 2^64 - 1, not " + seed->dump(), at);
    h.seed = seed->get<std::uint64_t>();
  }
  if (!j.contains("dims") || !j.at("dims").is_array())
    return make_error("trace header lacks its dims", {path, 1, 1});
  for (const auto& d : j.at("dims")) {
    const auto name = d.is_object() ? string_field(d, "name", at) : Result<std::string>("");
    if (!name || name->empty() || !d.contains("values") || !d.at("values").is_array())
      return make_error("trace header: a dimension lacks its name or values", at);
    Dimension dim{*name, {}};
    for (const auto& v : d.at("values")) dim.values.push_back(value_from_json(v));
    h.dims.push_back(std::move(dim));
  }
  if (j.contains("problems") && j.at("problems").is_array())
    for (const auto& p : j.at("problems")) {
      Problem problem;
      if (p.is_object())
        for (const auto& [k, v] : p.items())
          if (v.is_number_integer()) problem.dims[k] = v.get<std::int64_t>();
      h.problems.push_back(std::move(problem));
    }
  if (j.contains("dispatch")) {
    const json& d = j.at("dispatch");
    const auto bad = [&] {
      return make_error(
          "trace header: dispatch must be {\"by\": DIM, \"buckets\": [[lo, hi], ...]}",
          {path, 1, 1});
    };
    if (!d.is_object() || !d.contains("by") || !d.at("by").is_string() || !d.contains("buckets") ||
        !d.at("buckets").is_array())
      return bad();
    h.dispatch_by = d.at("by").get<std::string>();
    for (const auto& b : d.at("buckets")) {
      if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() ||
          !(b[1].is_number_integer() || b[1].is_null()))
        return bad();
      BucketRange r{b[0].get<std::int64_t>(), std::nullopt};
      if (!b[1].is_null()) r.hi = b[1].get<std::int64_t>();
      h.buckets.push_back(r);
    }
    if (auto why = bucket_ranges_error(h.buckets))
      return make_error("trace header: dispatch: " + *why, {path, 1, 1});
  }
  return h;
}

// The first of the record's times that no run takes (recorded_time), as "time_us is -5".
std::optional<std::string> unusable_time(const Outcome& o) {
  const auto bad = [](const char* field, double t) {
    return std::optional<std::string>(std::string(field) + " is " + time_text(t));
  };
  if (o.time_us && !recorded_time(*o.time_us)) return bad("time_us", *o.time_us);
  if (o.ci_low_us && !recorded_time(*o.ci_low_us)) return bad("ci_us[0]", *o.ci_low_us);
  if (o.ci_high_us && !recorded_time(*o.ci_high_us)) return bad("ci_us[1]", *o.ci_high_us);
  for (std::size_t i = 0; i < o.samples_us.size(); ++i)
    if (!recorded_time(o.samples_us[i]))
      return bad(("samples_us[" + std::to_string(i) + "]").c_str(), o.samples_us[i]);
  return std::nullopt;
}

Result<TraceRecord> record_from_json(const json& j, const std::string& path, int line) {
  if (!j.is_object() || !j.contains("params") || !j.at("params").is_object())
    return make_error("trace record lacks its params object", {path, line, 1});
  TraceRecord r;
  for (const auto& [name, v] : j.at("params").items()) r.params[name] = value_from_json(v);
  const SourceLocation at{path, line, 1};
  const auto disposition = string_field(j, "disposition", at);
  if (!disposition) return disposition.error();
  const auto d = parse_disposition(*disposition);
  if (!d) return make_error("trace record has an unknown disposition", at);
  r.outcome.disposition = *d;
  if (j.contains("time_us") && j.at("time_us").is_number())
    r.outcome.time_us = j.at("time_us").get<double>();
  if (j.contains("ci_us") && j.at("ci_us").is_array() && j.at("ci_us").size() == 2 &&
      j.at("ci_us")[0].is_number() && j.at("ci_us")[1].is_number()) {
    r.outcome.ci_low_us = j.at("ci_us")[0].get<double>();
    r.outcome.ci_high_us = j.at("ci_us")[1].get<double>();
  }
  if (j.contains("samples_us") && j.at("samples_us").is_array())
    for (const auto& s : j.at("samples_us"))
      if (s.is_number()) r.outcome.samples_us.push_back(s.get<double>());
  auto detail = string_field(j, "detail", at);
  if (!detail) return detail.error();
  r.outcome.detail = std::move(*detail);
  if (j.contains("resources")) {
    r.outcome.resources = resources_from_json(j.at("resources"));
    if (!r.outcome.resources)
      return make_error(
          "trace record's resources must be {\"registers\", \"shared_bytes\", "
          "\"local_bytes\"}, each a count a GPU can have",
          {path, line, 1});
  }
  if (const auto elapsed = j.find("elapsed_s"); elapsed != j.end()) {
    if (!elapsed->is_number())
      return make_error(
          "trace field 'elapsed_s' must be a number, not " + std::string(elapsed->type_name()), at);
    r.elapsed_s = elapsed->get<double>();
  }
  if (j.contains("bucket")) {
    if (!j.at("bucket").is_number_unsigned())
      return make_error("trace record's bucket must be a bucket index", {path, line, 1});
    r.bucket = j.at("bucket").get<std::size_t>();
  }
  if (r.outcome.passed() && !r.outcome.time_us)
    return make_error("trace record is passed but has no time_us", {path, line, 1});
  if (const auto bad = unusable_time(r.outcome))
    return make_error("trace record's " + *bad + "; times must be from 0.001 to 1e10 microseconds",
                      {path, line, 1});
  return r;
}

}  // namespace

bool looks_like_trace(const std::string& text) {
  const auto end = text.find('\n');
  const std::string first = text.substr(0, end);
  return first.find("\"kernelevo-trace\"") != std::string::npos;
}

Result<Trace> parse_trace(const std::string& text, const std::string& path) {
  Trace trace;
  std::size_t pos = 0;
  int line = 0;
  bool have_header = false;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    const std::string_view view(text.data() + pos, end - pos);
    pos = end + 1;
    ++line;
    if (view.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto parsed = parse_untrusted_json<json>(view, {path, line, 1});
    if (!parsed) {
      // A killed writer leaves at most one partial, final line (a duplicate key is no cut).
      if (last && have_header && !json::accept(view.begin(), view.end())) {
        trace.truncated = true;
        break;
      }
      return parsed.error();
    }
    const json& j = *parsed;
    // The readers check each field's type; a structure they did not foresee is an error of
    // this line, never an exception out of the reader.
    try {
      if (!have_header) {
        auto h = header_from_json(j, path);
        if (!h) return h.error();
        trace.header = std::move(*h);
        have_header = true;
        continue;
      }
      auto r = record_from_json(j, path, line);
      if (!r) return r.error();
      trace.records.push_back(std::move(*r));
    } catch (const json::exception& e) {
      return make_error("unexpected structure: " + std::string(e.what()), {path, line, 1});
    }
  }
  if (!have_header) return make_error("empty trace (no header line)", {path});
  return trace;
}

Result<Trace> read_trace(const std::string& path) {
  auto text = read_maybe_gzip(path);
  if (!text) return text.error();
  return parse_trace(*text, path);
}

Result<Recording> recording_from_trace(const Trace& trace, const std::string& path) {
  Recording rec;
  rec.format = "kernelevo-trace";
  rec.kernel = trace.header.kernel;
  rec.device = trace.header.device;
  rec.dims = trace.header.dims;
  struct Dims : SearchSpace {
    const std::vector<Dimension>& d;
    explicit Dims(const std::vector<Dimension>& dims) : d(dims) {}
    [[nodiscard]] const std::vector<Dimension>& dims() const override { return d; }
    [[nodiscard]] bool contains(const Point&) const override { return true; }
    [[nodiscard]] std::uint64_t size() const override { return total(); }
    [[nodiscard]] std::optional<Point> sample(Rng&) const override { return std::nullopt; }
    void for_each(const std::function<bool(const Point&)>&) const override {}
  } names(rec.dims);
  std::size_t n = 0;
  for (const auto& r : trace.records) {
    ++n;
    auto p = names.from_params(r.params);
    if (!p)
      return make_error("trace record " + std::to_string(n) +
                            " has parameters that do not match the header's dims",
                        {path});
    rec.add(std::move(*p), r.outcome);
  }
  return rec;
}

Result<std::vector<Evaluation>> trace_evaluations(const Trace& trace, const SearchSpace& space,
                                                  const std::string& path) {
  std::vector<Evaluation> out;
  out.reserve(trace.records.size());
  std::size_t n = 0;
  for (const auto& r : trace.records) {
    ++n;
    auto p = space.from_params(r.params);
    if (!p) {
      return make_error("trace record " + std::to_string(n) + " (" +
                            params_text(r.params, ",", "") +
                            ") is not a point of the space being tuned",
                        {path});
    }
    out.push_back({std::move(*p), r.outcome, r.elapsed_s});
  }
  return out;
}

TraceRecord trace_record(const Evaluation& evaluation, const SearchSpace& space,
                         std::optional<std::size_t> bucket) {
  return {space.to_params(evaluation.point), evaluation.outcome, evaluation.elapsed_s, bucket};
}

Trace bucket_trace(const Trace& trace, std::size_t bucket) {
  Trace out;
  out.header = trace.header;
  out.header.dispatch_by.clear();
  out.header.buckets.clear();
  if (bucket < trace.header.buckets.size())
    out.header.problems =
        problems_in(trace.header.problems, trace.header.dispatch_by, trace.header.buckets[bucket]);
  for (const TraceRecord& r : trace.records)
    if (r.bucket == bucket) out.records.push_back(r);
  out.truncated = trace.truncated;
  return out;
}

std::string trace_header_line(const TraceHeader& header) {
  json j = json::object();
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["tool"] = header.tool.empty() ? std::string("kernelevo ") + KERNELEVO_VERSION : header.tool;
  j["created"] = header.created.empty() ? utc_timestamp() : header.created;
  j["kernel"] = header.kernel;
  j["device"] = header.device;
  j["strategy"] = header.strategy;
  j["seed"] = header.seed;
  if (!header.timing.empty()) j["timing"] = header.timing;
  if (header.flush > 0) j["flush"] = header.flush;
  if (!header.compiler.empty()) j["compiler"] = header.compiler;
  json dims = json::array();
  for (const auto& d : header.dims) {
    json values = json::array();
    for (const auto& v : d.values) values.push_back(value_to_json<json>(v));
    dims.push_back(json{{"name", d.name}, {"values", values}});
  }
  j["dims"] = dims;
  json problems = json::array();
  for (const auto& p : header.problems) {
    json o = json::object();
    for (const auto& [k, v] : p.dims) o[k] = v;
    problems.push_back(o);
  }
  j["problems"] = problems;
  if (!header.buckets.empty()) {
    json buckets = json::array();
    for (const auto& b : header.buckets)
      buckets.push_back(json::array({b.lo, b.hi ? json(*b.hi) : json(nullptr)}));
    j["dispatch"] = json{{"by", header.dispatch_by}, {"buckets", buckets}};
  }
  return j.dump();
}

std::string trace_record_line(const TraceRecord& record) {
  json j = json::object();
  j["params"] = params_to_json<json>(record.params);
  j["disposition"] = to_string(record.outcome.disposition);
  j["time_us"] = record.outcome.time_us ? json(*record.outcome.time_us) : json(nullptr);
  j["ci_us"] = record.outcome.ci_low_us && record.outcome.ci_high_us
                   ? json::array({*record.outcome.ci_low_us, *record.outcome.ci_high_us})
                   : json(nullptr);
  j["samples_us"] = record.outcome.samples_us;
  j["detail"] = record.outcome.detail;
  j["elapsed_s"] = record.elapsed_s;
  if (record.outcome.resources) j["resources"] = resources_to_json<json>(*record.outcome.resources);
  if (record.bucket) j["bucket"] = *record.bucket;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<TraceWriter> TraceWriter::create(const std::string& path, const TraceHeader& header) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr)
    return make_error("cannot write trace: " + std::string(std::strerror(errno)), {path});
  TraceWriter w(path, f);
  const std::string line = trace_header_line(header) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fflush(f) != 0)
    return make_error("cannot write trace: " + std::string(std::strerror(errno)), {path});
  return w;
}

Result<TraceWriter> TraceWriter::append(const std::string& path) {
  // Drop a partial last line so the next record starts on a line of its own.
  const auto text = read_regular_file(path, kMaxRecordingBytes);
  if (!text) return text.error();
  if (!text->empty() && text->back() != '\n') {
    const auto last_newline = text->rfind('\n');
    const auto keep = last_newline == std::string::npos ? 0 : last_newline + 1;
    std::error_code ec;
    std::filesystem::resize_file(path, keep, ec);
    if (ec) return make_error("cannot repair trace: " + ec.message(), {path});
  }
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr)
    return make_error("cannot append to trace: " + std::string(std::strerror(errno)), {path});
  return TraceWriter(path, f);
}

Status TraceWriter::write(const TraceRecord& record) {
  const std::string line = trace_record_line(record) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size() ||
      std::fflush(file_.get()) != 0)
    return make_error("cannot write trace: " + std::string(std::strerror(errno)), {path_});
  return ok_status();
}

}  // namespace kev::io
