#include "cuda/worker_protocol.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/compiler.h"
#include "io/device_json.h"
#include "io/resources_json.h"

namespace kev::cuda {

using nlohmann::json;

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

json loc_json(const SourceLocation& l) {
  return json{{"file", l.file}, {"line", l.line}, {"column", l.column}};
}
SourceLocation loc_from(const json& j) {
  SourceLocation l;
  if (!j.is_object()) return l;
  l.file = j.value("file", "");
  l.line = j.value("line", 0);
  l.column = j.value("column", 0);
  return l;
}

json expr_json(const Expr& e) { return json{{"text", e.text()}, {"at", loc_json(e.origin())}}; }
Result<Expr> expr_from(const json& j) {
  return Expr::parse(j.at("text").get<std::string>(), loc_from(j.at("at")));
}

json value_json(const Value& v) {
  if (v.is_int()) return *v.as_int();
  if (v.is_double()) return v.as_double();
  return v.as_string();
}
Value value_from(const json& j) {
  if (j.is_number_integer()) return Value(j.get<std::int64_t>());
  if (j.is_number()) return Value(j.get<double>());
  return Value(j.get<std::string>());
}

json params_json(const ParamSet& p) {
  json j = json::object();
  for (const auto& [k, v] : p) j[k] = value_json(v);
  return j;
}
ParamSet params_from(const json& j) {
  ParamSet p;
  for (const auto& [k, v] : j.items()) p[k] = value_from(v);
  return p;
}

json problems_json(const std::vector<Problem>& ps) {
  json a = json::array();
  for (const auto& p : ps) a.push_back(json{{"dims", p.dims}, {"at", loc_json(p.where)}});
  return a;
}
std::vector<Problem> problems_from(const json& a) {
  std::vector<Problem> ps;
  for (const auto& j : a) {
    Problem p;
    p.dims = j.at("dims").get<std::map<std::string, std::int64_t>>();
    p.where = loc_from(j.at("at"));
    ps.push_back(std::move(p));
  }
  return ps;
}

json spec_json(const KernelSpec& s) {
  json args = json::array();
  for (const auto& a : s.args) {
    json ja{{"name", a.name},
            {"type", static_cast<int>(a.type)},
            {"pointer", a.pointer},
            {"const", a.is_const},
            {"init", static_cast<int>(a.init)},
            {"init_value", a.init_value},
            {"init_low", a.init_low},
            {"output", a.output},
            {"inout", a.inout},
            {"scratch", a.scratch},
            {"at", loc_json(a.where)}};
    if (a.count) ja["count"] = expr_json(*a.count);
    if (a.value_expr) ja["value"] = expr_json(*a.value_expr);
    if (a.float_value) ja["float_value"] = *a.float_value;
    if (a.tensor_map) {
      json dims = json::array(), box = json::array();
      for (const auto& e : a.tensor_map->dims) dims.push_back(expr_json(e));
      for (const auto& e : a.tensor_map->box) box.push_back(expr_json(e));
      ja["tensor_map"] = {{"of", a.tensor_map->of},
                          {"dims", dims},
                          {"box", box},
                          {"swizzle", a.tensor_map->swizzle},
                          {"at", loc_json(a.tensor_map->where)}};
    }
    args.push_back(std::move(ja));
  }
  json grid = json::array(), block = json::array();
  for (const auto& e : s.launch.grid) grid.push_back(expr_json(e));
  for (const auto& e : s.launch.block) block.push_back(expr_json(e));
  json j{{"id", s.id},
         {"kernel", s.kernel},
         {"source", s.source},
         {"at", loc_json(s.where)},
         {"args", args},
         {"grid", grid},
         {"block", block},
         {"rtol", s.tolerance.rtol},
         {"atol", s.tolerance.atol},
         {"problems", problems_json(s.problems)},
         {"validate", problems_json(s.validate)}};
  if (s.launch.shared_bytes) j["shared_bytes"] = expr_json(*s.launch.shared_bytes);
  if (s.launch.cluster) j["cluster"] = expr_json(*s.launch.cluster);
  if (s.metric_bytes) j["bytes"] = expr_json(*s.metric_bytes);
  if (s.metric_flops) j["flops"] = expr_json(*s.metric_flops);
  return j;
}

Result<KernelSpec> spec_from(const json& j) {
  KernelSpec s;
  s.id = j.at("id").get<std::string>();
  s.kernel = j.at("kernel").get<std::string>();
  s.source = j.at("source").get<std::string>();
  s.where = loc_from(j.at("at"));
  for (const auto& ja : j.at("args")) {
    ArgSpec a;
    a.name = ja.at("name").get<std::string>();
    a.type = static_cast<ScalarType>(ja.at("type").get<int>());
    a.pointer = ja.at("pointer").get<bool>();
    a.is_const = ja.at("const").get<bool>();
    a.init = static_cast<InitKind>(ja.at("init").get<int>());
    a.init_value = ja.at("init_value").get<double>();
    a.init_low = ja.at("init_low").get<double>();
    a.output = ja.at("output").get<bool>();
    a.inout = ja.at("inout").get<bool>();
    a.scratch = ja.at("scratch").get<bool>();
    a.where = loc_from(ja.at("at"));
    if (ja.contains("count")) {
      auto e = expr_from(ja["count"]);
      if (!e) return e.error();
      a.count = std::move(e).value();
    }
    if (ja.contains("value")) {
      auto e = expr_from(ja["value"]);
      if (!e) return e.error();
      a.value_expr = std::move(e).value();
    }
    if (ja.contains("float_value")) a.float_value = ja["float_value"].get<double>();
    if (ja.contains("tensor_map")) {
      const json& jt = ja["tensor_map"];
      TensorMapSpec t;
      t.of = jt.at("of").get<std::string>();
      for (const auto& [key, target] : {std::pair{"dims", &t.dims}, {"box", &t.box}}) {
        for (const auto& je : jt.at(key)) {
          auto e = expr_from(je);
          if (!e) return e.error();
          target->push_back(std::move(e).value());
        }
      }
      t.swizzle = jt.at("swizzle").get<int>();
      t.where = loc_from(jt.at("at"));
      a.tensor_map = std::move(t);
    }
    s.args.push_back(std::move(a));
  }
  for (const auto& e : j.at("grid")) {
    auto x = expr_from(e);
    if (!x) return x.error();
    s.launch.grid.push_back(std::move(x).value());
  }
  for (const auto& e : j.at("block")) {
    auto x = expr_from(e);
    if (!x) return x.error();
    s.launch.block.push_back(std::move(x).value());
  }
  for (const char* key : {"shared_bytes", "cluster", "bytes", "flops"}) {
    if (!j.contains(key)) continue;
    auto x = expr_from(j[key]);
    if (!x) return x.error();
    if (std::string(key) == "shared_bytes")
      s.launch.shared_bytes = std::move(x).value();
    else if (std::string(key) == "cluster")
      s.launch.cluster = std::move(x).value();
    else if (std::string(key) == "bytes")
      s.metric_bytes = std::move(x).value();
    else
      s.metric_flops = std::move(x).value();
  }
  s.tolerance.rtol = j.at("rtol").get<double>();
  s.tolerance.atol = j.at("atol").get<double>();
  s.problems = problems_from(j.at("problems"));
  s.validate = problems_from(j.at("validate"));
  return s;
}

json timing_json(const TimingOptions& t) {
  return json{{"warmup_runs", t.warmup_runs},
              {"min_runs", t.min_runs},
              {"max_runs", t.max_runs},
              {"min_seconds", t.min_seconds},
              {"max_seconds", t.max_seconds},
              {"verify_rounds", t.verify_rounds},
              {"flush_l2", t.flush_l2},
              {"charge_writeback", t.charge_writeback},
              {"dirty_l2", t.dirty_l2},
              {"batch_below_us", t.batch_below_us},
              {"timing_sets", t.timing_sets},
              {"timing_set_budget_bytes", t.timing_set_budget_bytes},
              {"verify_every_launch_below_ratio", t.verify_every_launch_below_ratio},
              {"incumbent_us", t.incumbent_us},
              {"early_stop_ratio", t.early_stop_ratio},
              {"ceiling_margin", t.ceiling_margin},
              {"seed", t.seed},
              {"timeout_seconds", t.timeout_seconds}};
}
TimingOptions timing_from(const json& j) {
  TimingOptions t;
  t.warmup_runs = j.at("warmup_runs").get<int>();
  t.min_runs = j.at("min_runs").get<int>();
  t.max_runs = j.at("max_runs").get<int>();
  t.min_seconds = j.at("min_seconds").get<double>();
  t.max_seconds = j.at("max_seconds").get<double>();
  t.verify_rounds = j.at("verify_rounds").get<int>();
  t.flush_l2 = j.at("flush_l2").get<bool>();
  t.charge_writeback = j.value("charge_writeback", t.charge_writeback);
  t.dirty_l2 = j.value("dirty_l2", t.dirty_l2);
  t.batch_below_us = j.at("batch_below_us").get<double>();
  t.timing_sets = j.value("timing_sets", t.timing_sets);
  t.timing_set_budget_bytes = j.value("timing_set_budget_bytes", t.timing_set_budget_bytes);
  t.verify_every_launch_below_ratio =
      j.value("verify_every_launch_below_ratio", t.verify_every_launch_below_ratio);
  t.incumbent_us = j.at("incumbent_us").get<double>();
  t.early_stop_ratio = j.at("early_stop_ratio").get<double>();
  t.ceiling_margin = j.at("ceiling_margin").get<double>();
  t.seed = j.at("seed").get<std::uint64_t>();
  t.timeout_seconds = j.at("timeout_seconds").get<double>();
  return t;
}

template <class T>
void put_opt(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

DeviceInfo device_from(const json& j) {
  DeviceInfo d;
  d.index = j.at("index").get<int>();
  d.name = j.at("name").get<std::string>();
  d.arch = j.at("arch").get<std::string>();
  d.sms = j.at("sms").get<int>();
  d.l2_bytes = j.at("l2_bytes").get<std::int64_t>();
  d.memory_bytes = j.at("memory_bytes").get<std::int64_t>();
  d.driver_version = j.at("driver_version").get<std::string>();
  d.cuda_version = j.at("cuda_version").get<std::string>();
  d.copy_gbps = j.at("copy_gbps").get<double>();
  d.read_gbps = j.at("read_gbps").get<double>();
  d.sm_clock_mhz = j.at("sm_clock_mhz").get<int>();
  d.clock_source = j.at("clock_source").get<std::string>();
  return d;
}

json outcome_json(const Outcome& o) {
  json j{{"disposition", to_string(o.disposition)},
         {"samples_us", o.samples_us},
         {"detail", o.detail}};
  put_opt(j, "time_us", o.time_us);
  put_opt(j, "ci_low_us", o.ci_low_us);
  put_opt(j, "ci_high_us", o.ci_high_us);
  if (o.resources) j["resources"] = io::resources_to_json<json>(*o.resources);
  return j;
}
Outcome outcome_from(const json& j) {
  Outcome o;
  o.disposition =
      parse_disposition(j.at("disposition").get<std::string>()).value_or(Disposition::invalid);
  o.samples_us = j.at("samples_us").get<std::vector<double>>();
  o.detail = j.at("detail").get<std::string>();
  o.time_us = get_opt<double>(j, "time_us");
  o.ci_low_us = get_opt<double>(j, "ci_low_us");
  o.ci_high_us = get_opt<double>(j, "ci_high_us");
  if (j.contains("resources")) o.resources = io::resources_from_json(j.at("resources"));
  return o;
}

json report_json(const RunReport& r) {
  json problems = json::array();
  for (const auto& p : r.problems) {
    json j{{"problem", p.problem},
           {"timed", p.timed},
           {"disposition", to_string(p.disposition)},
           {"samples_us", p.samples_us},
           {"stopped_early", p.stopped_early},
           {"launches_per_sample", p.launches_per_sample},
           {"detail", p.detail}};
    put_opt(j, "time_us", p.time_us);
    put_opt(j, "ci_low_us", p.ci_low_us);
    put_opt(j, "ci_high_us", p.ci_high_us);
    put_opt(j, "gbps", p.gbps);
    put_opt(j, "copy_fraction", p.copy_fraction);
    problems.push_back(std::move(j));
  }
  return json{{"outcome", outcome_json(r.outcome)},
              {"problems", problems},
              {"sm_clock_mhz_before", r.sm_clock_mhz_before},
              {"sm_clock_mhz_after", r.sm_clock_mhz_after},
              {"warnings", r.warnings},
              {"context_lost", r.context_lost}};
}
RunReport report_from(const json& j) {
  RunReport r;
  r.outcome = outcome_from(j.at("outcome"));
  for (const auto& jp : j.at("problems")) {
    ProblemResult p;
    p.problem = jp.at("problem").get<std::string>();
    p.timed = jp.at("timed").get<bool>();
    p.disposition =
        parse_disposition(jp.at("disposition").get<std::string>()).value_or(Disposition::invalid);
    p.samples_us = jp.at("samples_us").get<std::vector<double>>();
    p.stopped_early = jp.at("stopped_early").get<bool>();
    p.launches_per_sample = jp.value("launches_per_sample", 1);
    p.detail = jp.at("detail").get<std::string>();
    p.time_us = get_opt<double>(jp, "time_us");
    p.ci_low_us = get_opt<double>(jp, "ci_low_us");
    p.ci_high_us = get_opt<double>(jp, "ci_high_us");
    p.gbps = get_opt<double>(jp, "gbps");
    p.copy_fraction = get_opt<double>(jp, "copy_fraction");
    r.problems.push_back(std::move(p));
  }
  r.sm_clock_mhz_before = j.at("sm_clock_mhz_before").get<int>();
  r.sm_clock_mhz_after = j.at("sm_clock_mhz_after").get<int>();
  r.warnings = j.at("warnings").get<std::string>();
  r.context_lost = j.at("context_lost").get<bool>();
  return r;
}

Error protocol_error(const std::string& what) {
  return make_error("worker protocol: " + what, {}, ExitCode::environment);
}

}  // namespace

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<std::size_t>(k)];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;
      v[k] = value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const unsigned n = (static_cast<unsigned>(v[0]) << 18) | (static_cast<unsigned>(v[1]) << 12) |
                       (static_cast<unsigned>(v[2]) << 6) | static_cast<unsigned>(v[3]);
    out += static_cast<char>((n >> 16) & 0xFF);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

namespace {

// An image, and what its compiler decided of the launch (Triton's), when it did.
json image_json(const KernelImage& k) {
  json j{{"image", base64_encode(k.image)}, {"function", k.function}};
  if (k.launch.block_threads) j["block_threads"] = *k.launch.block_threads;
  if (k.launch.shared_bytes) j["shared_bytes"] = *k.launch.shared_bytes;
  if (k.launch.trailing_null_pointers != 0)
    j["trailing_null_pointers"] = k.launch.trailing_null_pointers;
  if (k.launch.cluster_ctas != 1) j["cluster_ctas"] = k.launch.cluster_ctas;
  return j;
}

ImageLaunch image_launch_from(const json& j) {
  ImageLaunch l;
  if (j.contains("block_threads")) l.block_threads = j.at("block_threads").get<unsigned>();
  if (j.contains("shared_bytes")) l.shared_bytes = j.at("shared_bytes").get<unsigned>();
  if (j.contains("trailing_null_pointers"))
    l.trailing_null_pointers = std::min(j.at("trailing_null_pointers").get<unsigned>(), 8u);
  if (j.contains("cluster_ctas"))
    l.cluster_ctas = std::clamp(j.at("cluster_ctas").get<unsigned>(), 1u, kMaxPortableClusterCtas);
  return l;
}

}  // namespace

std::string encode_request(const WorkerRequest& request) {
  json j{{"version", kWorkerProtocolVersion}};
  switch (request.op) {
    case WorkerRequest::Op::device:
      j["op"] = "device";
      break;
    case WorkerRequest::Op::quit:
      j["op"] = "quit";
      break;
    case WorkerRequest::Op::run: {
      const RunRequest& r = request.run;
      j["op"] = "run";
      j["spec"] = spec_json(r.spec);
      j["params"] = params_json(r.params);
      j["reference_params"] = params_json(r.reference_params);
      j["candidate"] = image_json(r.candidate);
      j["reference"] = image_json(r.reference);
      j["timing"] = timing_json(r.timing);
      j["time_it"] = r.time_it;
      j["copy_gbps"] = request.copy_gbps;
      j["read_gbps"] = request.read_gbps;
      break;
    }
  }
  return j.dump();
}

Result<WorkerRequest> decode_request(const std::string& line) {
  try {
    const json j = json::parse(line);
    if (j.value("version", 0) != kWorkerProtocolVersion) return protocol_error("version mismatch");
    WorkerRequest r;
    const std::string op = j.at("op").get<std::string>();
    if (op == "device") {
      r.op = WorkerRequest::Op::device;
    } else if (op == "quit") {
      r.op = WorkerRequest::Op::quit;
    } else if (op == "run") {
      r.op = WorkerRequest::Op::run;
      auto spec = spec_from(j.at("spec"));
      if (!spec) return spec.error();
      r.run.spec = std::move(spec).value();
      r.run.params = params_from(j.at("params"));
      r.run.reference_params = params_from(j.at("reference_params"));
      auto cand = base64_decode(j.at("candidate").at("image").get<std::string>());
      auto ref = base64_decode(j.at("reference").at("image").get<std::string>());
      if (!cand || !ref) return protocol_error("bad base64 image");
      r.run.candidate = {std::move(*cand), j.at("candidate").at("function").get<std::string>(),
                         image_launch_from(j.at("candidate"))};
      r.run.reference = {std::move(*ref), j.at("reference").at("function").get<std::string>(),
                         image_launch_from(j.at("reference"))};
      r.run.timing = timing_from(j.at("timing"));
      r.run.time_it = j.at("time_it").get<bool>();
      r.copy_gbps = j.at("copy_gbps").get<double>();
      r.read_gbps = j.at("read_gbps").get<double>();
    } else {
      return protocol_error("unknown op '" + op + "'");
    }
    return r;
  } catch (const json::exception& e) {
    return protocol_error(e.what());
  }
}

std::string encode_response(const WorkerResponse& response) {
  json j{{"version", kWorkerProtocolVersion}, {"ok", response.ok}};
  if (!response.ok) {
    j["error"] = response.error.message;
    j["code"] = static_cast<int>(response.error.code);
  } else {
    j["device"] = io::device_to_json<json>(response.device);
    j["report"] = report_json(response.report);
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<WorkerResponse> decode_response(const std::string& line) {
  try {
    const json j = json::parse(line);
    if (j.value("version", 0) != kWorkerProtocolVersion) return protocol_error("version mismatch");
    WorkerResponse r;
    r.ok = j.at("ok").get<bool>();
    if (!r.ok) {
      r.error = make_error(j.at("error").get<std::string>(), {},
                           static_cast<ExitCode>(j.value("code", 3)));
      return r;
    }
    r.device = device_from(j.at("device"));
    r.report = report_from(j.at("report"));
    return r;
  } catch (const json::exception& e) {
    return protocol_error(e.what());
  }
}

}  // namespace kev::cuda
