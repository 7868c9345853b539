#include "io/lockfile_json.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/evaluation.h"
#include "io/atomic_file.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/json_parse.h"

namespace kev {
namespace {

using Json = nlohmann::json;
using io::excerpt;

constexpr std::size_t kMaxIdentifier = 64;  // parameter names and string values
constexpr std::size_t kMaxKernelId = 128;
constexpr std::size_t kMaxDeviceName = 128;
constexpr std::size_t kMaxPath = 1024;
constexpr std::size_t kMaxTunedWith = 512;

std::string format_double(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back exactly
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // stays a float when read back
  return s;
}

// Why `us` is no time a lockfile holds, if it is not.
std::optional<std::string> time_error(double us) {
  if (!std::isfinite(us) || us <= 0.0) return "expected a positive number of microseconds";
  if (!recorded_time(us))
    return "expected a number of microseconds from 0.001 to 1e10, not " + format_double(us);
  return std::nullopt;
}

// --- reading ----------------------------------------------------------------------------

// Where a problem is: a label for the message and the JSON key path, from which the line
// and column are found in the text.
struct Where {
  std::string label;
  std::vector<std::string> keys;
  // A member of this object, with the label it is known by.
  [[nodiscard]] Where at(const std::string& key, std::string member_label) const {
    Where w{std::move(member_label), keys};
    w.keys.push_back(key);
    return w;
  }
  // A field of an entry or kernel: "k sm_90 NVIDIA H200: time_us".
  [[nodiscard]] Where field(const std::string& key) const { return at(key, label + ": " + key); }
  // Element `index` of this array, with the label it is known by.
  [[nodiscard]] Where element(std::size_t index, std::string element_label) const {
    return at(std::string(1, kElement) + std::to_string(index), std::move(element_label));
  }
  static constexpr char kElement = '\x01';  // a key path step naming an array element
};

// Thrown inside this file only; parse_lockfile turns it into an Error.
struct Invalid {
  std::string message;
  std::vector<std::string> keys;
};

[[noreturn]] void fail(const Where& where, const std::string& what) {
  throw Invalid{where.label.empty() ? what : where.label + ": " + what, where.keys};
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A parameter's string value reaches the compiler as a macro's text: identifiers, optionally
// qualified ("float4", "cub::BLOCK_LOAD_VECTORIZE"), nothing else.
bool is_symbol_value(std::string_view s) {
  if (s.size() > kMaxIdentifier) return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t sep = s.find("::", start);
    if (!is_identifier(s.substr(start, sep == std::string_view::npos ? sep : sep - start)))
      return false;
    if (sep == std::string_view::npos) return true;
    start = sep + 2;
  }
}

bool only_chars(std::string_view s, std::string_view extra) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && extra.find(c) == std::string_view::npos)
      return false;
  return true;
}

bool is_kernel_id(std::string_view s) {
  return !s.empty() && s.size() <= kMaxKernelId && only_chars(s, "_.:-");
}

bool is_device_name(std::string_view s) {
  return !s.empty() && s.size() <= kMaxDeviceName && s.front() != ' ' && s.back() != ' ' &&
         only_chars(s, " _.-()+,");
}

bool is_printable_line(std::string_view s) {
  for (char c : s)
    if (!std::isprint(static_cast<unsigned char>(c))) return false;
  return true;
}

const char* type_name(const Json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number_float()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "an array";
  return "an object";
}

const Json& require_object(const Json& j, const Where& where) {
  if (!j.is_object()) fail(where, std::string("expected an object, found ") + type_name(j));
  return j;
}

void allow_keys(const Json& object, std::initializer_list<const char*> allowed,
                const Where& where) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(where.at(key, where.label), "unknown key " + excerpt(key) + " (expected " + list + ")");
    }
  }
}

const Json& require_key(const Json& object, const char* key, const Where& where) {
  const auto it = object.find(key);
  if (it == object.end()) fail(where, std::string("missing \"") + key + "\"");
  return *it;
}

std::string require_string(const Json& j, const Where& where) {
  if (!j.is_string()) fail(where, std::string("expected a string, found ") + type_name(j));
  return j.get<std::string>();
}

double require_time(const Json& j, const Where& where) {
  if (!j.is_number())
    fail(where, std::string("expected a number of microseconds, found ") + type_name(j));
  const double d = j.get<double>();
  if (auto why = time_error(d)) fail(where, *why);
  return d;
}

Value read_param_value(const Json& j, const Where& where) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(where, "integer out of range");
    return Value(static_cast<std::int64_t>(u));
  }
  if (j.is_number_integer()) return Value(j.get<std::int64_t>());
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (!std::isfinite(d)) fail(where, "expected a finite number");
    return Value(d);
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s.size() > kMaxIdentifier)
      fail(where, "string value of " + std::to_string(s.size()) + " characters refused (at most " +
                      std::to_string(kMaxIdentifier) + ")");
    if (!is_symbol_value(s))
      fail(where,
           "string value " + excerpt(s) + " refused: only identifiers (like float4) are allowed");
    return Value(s);
  }
  fail(where, std::string("expected an integer, a number or an identifier, found ") + type_name(j));
}

ParamSet read_params(const Json& j, const Where& where) {
  const Where params_where = where.field("params");
  const Json& params = require_object(require_key(j, "params", where), params_where);
  ParamSet out;
  for (const auto& [name, value] : params.items()) {
    if (name.size() > kMaxIdentifier || !is_identifier(name))
      fail(params_where.at(name, params_where.label),
           "parameter name " + excerpt(name) + " is not an identifier");
    out.emplace(name,
                read_param_value(value, params_where.at(name, params_where.label + "." + name)));
  }
  return out;
}

std::int64_t read_bound(const Json& j, const Where& where) {
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail(where, "integer out of range");
  if (!j.is_number_integer())
    fail(where, std::string("expected an integer, found ") + type_name(j));
  return j.get<std::int64_t>();
}

// {"baseline_us": ..., "params": {...}, "range": [lo, hi or null], "sized": false,
// "time_us": ...}
LockBucket read_bucket(const Json& j, const Where& where, int version) {
  require_object(j, where);
  allow_keys(j, {"baseline_us", "params", "range", "sized", "time_us"}, where);
  LockBucket b;
  const Where range_where = where.field("range");
  const Json& range = require_key(j, "range", where);
  if (!range.is_array() || range.size() != 2)
    fail(range_where, "expected [low, high] (high an integer, or null for no upper bound)");
  b.range.lo = read_bound(range[0], range_where);
  if (!range[1].is_null()) b.range.hi = read_bound(range[1], range_where);
  b.params = read_params(j, where);
  if (j.contains("time_us")) b.time_us = require_time(j["time_us"], where.field("time_us"));
  if (j.contains("baseline_us"))
    b.baseline_us = require_time(j["baseline_us"], where.field("baseline_us"));
  if (j.contains("sized")) {
    const Where sized_where = where.field("sized");
    if (version < 4)
      fail(sized_where,
           "\"sized\" needs schema_version 4 (the file says " + std::to_string(version) + ")");
    if (!j["sized"].is_boolean())
      fail(sized_where, std::string("expected true or false, found ") + type_name(j["sized"]));
    b.sized = j["sized"].get<bool>();
  }
  return b;
}

// "buckets" and "by" of an entry (schema_version 3).
void read_buckets(const Json& j, const Where& where, int version, LockEntry& e) {
  const Where buckets_where = where.field("buckets");
  if (version < 3)
    fail(buckets_where,
         "buckets need schema_version 3 (the file says " + std::to_string(version) + ")");
  if (j.contains("params")) fail(where.field("params"), "an entry has params or buckets, not both");
  e.by = require_string(require_key(j, "by", where), where.field("by"));
  if (e.by.size() > kMaxIdentifier || !is_identifier(e.by))
    fail(where.field("by"), "dimension " + excerpt(e.by) + " is not an identifier");
  const Json& buckets = j["buckets"];
  if (!buckets.is_array() || buckets.empty())
    fail(buckets_where, "expected a non-empty array of buckets");
  if (buckets.size() > kMaxBuckets)
    fail(buckets_where,
         std::to_string(buckets.size()) + " buckets; at most " + std::to_string(kMaxBuckets));
  std::vector<BucketRange> ranges;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const Where at = buckets_where.element(i, where.label + " bucket " + std::to_string(i));
    e.buckets.push_back(read_bucket(buckets[i], at, version));
    ranges.push_back(e.buckets.back().range);
    if (auto why = bucket_ranges_error(ranges)) fail(at, e.by + " " + *why);
  }
}

LockEntry read_entry(const Json& j, const Where& where, int version) {
  require_object(j, where);
  allow_keys(j,
             {"baseline_us", "buckets", "by", "compiler", "default", "flush", "params", "time_us",
              "timing", "tuned_with"},
             where);
  LockEntry e;
  if (j.contains("buckets")) {
    read_buckets(j, where, version, e);
  } else {
    if (j.contains("by")) fail(where.field("by"), "\"by\" without \"buckets\"");
    e.params = read_params(j, where);
  }
  if (j.contains("time_us")) e.time_us = require_time(j["time_us"], where.field("time_us"));
  if (j.contains("baseline_us"))
    e.baseline_us = require_time(j["baseline_us"], where.field("baseline_us"));
  if (j.contains("tuned_with")) {
    e.tuned_with = require_string(j["tuned_with"], where.field("tuned_with"));
    if (e.tuned_with.size() > kMaxTunedWith || !is_printable_line(e.tuned_with))
      fail(where.field("tuned_with"), "expected one line of at most " +
                                          std::to_string(kMaxTunedWith) + " printable characters");
  }
  if (j.contains("timing")) {
    e.timing = require_string(j["timing"], where.field("timing"));
    if (e.timing != kTimingColdL2 && !timed_dirty(e.timing) && !timed_with_writeback(e.timing))
      fail(where.field("timing"), std::string("expected ") + kTimingColdL2 + ", " +
                                      kTimingColdDirtyL2 + " or " + kTimingWriteBack + ", not " +
                                      excerpt(e.timing));
  }
  if (j.contains("compiler")) {
    e.compiler = require_string(j["compiler"], where.field("compiler"));
    if (e.compiler != "nvcc" && e.compiler != "nvrtc")
      fail(where.field("compiler"), "expected nvcc or nvrtc, not " + excerpt(e.compiler));
  }
  if (const auto flush = j.find("flush"); flush != j.end()) {
    if (!flush->is_number_unsigned() || flush->get<std::uint64_t>() < 1 ||
        flush->get<std::uint64_t>() > kMaxFlushRevision)
      fail(where.field("flush"), "expected an L2 flush revision from 1 to " +
                                     std::to_string(kMaxFlushRevision) + ", not " +
                                     excerpt(flush->dump()));
    e.flush = flush->get<int>();
  }
  if (j.contains("default")) {
    if (!j["default"].is_boolean()) fail(where.field("default"), "expected true or false");
    e.is_default = j["default"].get<bool>();
  }
  return e;
}

std::string read_hash(const Json& j, const char* key, const Where& where) {
  const Where at = where.field(key);
  std::string hash = require_string(require_key(j, key, where), at);
  if (!is_sha256_text(hash)) fail(at, excerpt(hash) + " is not \"sha256:\" and 64 hex digits");
  return hash;
}

// {"base_source_hash": ..., "file": ..., "hash": ...}; a bare path is the form of files
// written before variants carried hashes.
LockedVariant read_variant(const Json& j, const Where& where) {
  LockedVariant v;
  if (j.is_string()) {
    v.file = j.get<std::string>();
  } else {
    require_object(j, where);
    allow_keys(j, {"base_source_hash", "file", "hash"}, where);
    v.file = require_string(require_key(j, "file", where), where.field("file"));
    v.hash = read_hash(j, "hash", where);
    v.base_source_hash = read_hash(j, "base_source_hash", where);
  }
  if (!is_project_path(v.file))
    fail(where, excerpt(v.file) + " is not a relative path inside the lockfile's directory");
  return v;
}

LockedKernel read_kernel(const Json& j, const Where& where, int version) {
  require_object(j, where);
  allow_keys(j, {"source", "source_hash", "targets", "variant"}, where);
  LockedKernel k;
  k.source = require_string(require_key(j, "source", where), where.field("source"));
  if (!is_project_path(k.source))
    fail(where.field("source"), excerpt(k.source) + " is not a relative path inside the project");
  k.source_hash = require_string(require_key(j, "source_hash", where), where.field("source_hash"));
  if (!is_sha256_text(k.source_hash))
    fail(where.field("source_hash"),
         excerpt(k.source_hash) + " is not \"sha256:\" and 64 hex digits");
  if (j.contains("variant")) k.variant = read_variant(j["variant"], where.field("variant"));
  const Where targets_where = where.field("targets");
  const Json& targets = require_object(require_key(j, "targets", where), targets_where);
  for (const auto& [arch, devices] : targets.items()) {
    const Where arch_where = targets_where.at(arch, where.label + " " + arch);
    if (!parse_arch(arch))
      fail(targets_where.at(arch, targets_where.label),
           excerpt(arch) + " is not an architecture like sm_90");
    require_object(devices, arch_where);
    DeviceEntries& out = k.targets[arch];
    int defaults = 0;
    for (const auto& [device, entry] : devices.items()) {
      if (!is_device_name(device))
        fail(arch_where.at(device, arch_where.label),
             "device name " + excerpt(device) + " refused (letters, digits, spaces, _.-()+, only)");
      LockEntry e =
          read_entry(entry, arch_where.at(device, arch_where.label + " " + device), version);
      defaults += e.is_default ? 1 : 0;
      out.emplace(device, std::move(e));
    }
    if (defaults > 1) fail(arch_where, "more than one device is marked default");
  }
  return k;
}

Lockfile read_root(const Json& root) {
  const Where top;
  require_object(root, top);
  // The version first: a newer file may have any shape.
  const Json& version = require_key(root, "schema_version", top);
  const Where version_where = top.at("schema_version", "schema_version");
  if (!version.is_number_integer()) fail(version_where, "expected an integer");
  const auto v = version.get<std::int64_t>();
  if (v > Lockfile::kSchemaVersion)
    fail(top.at("schema_version", ""),
         "schema_version " + std::to_string(v) + " is newer than this kernelevo reads (" +
             std::to_string(Lockfile::kSchemaVersion) + "); upgrade kernelevo");
  if (v < 1) fail(version_where, "unsupported schema_version " + std::to_string(v));
  allow_keys(root, {"kernels", "schema_version"}, top);
  Lockfile lock;
  lock.schema_version = static_cast<int>(v);
  const Where kernels_where = top.at("kernels", "kernels");
  const Json& kernels = require_object(require_key(root, "kernels", top), kernels_where);
  for (const auto& [id, kernel] : kernels.items()) {
    if (!is_kernel_id(id))
      fail(kernels_where.at(id, "kernels"), "kernel id " + excerpt(id) + " refused");
    lock.kernels.emplace(id, read_kernel(kernel, kernels_where.at(id, id), lock.schema_version));
  }
  return lock;
}

// Where element `index` of the first array at or after `from` starts (the text is valid
// JSON: it parsed).
std::optional<std::size_t> element_offset(std::string_view text, std::size_t from,
                                          std::size_t index) {
  const std::size_t open = text.find('[', from);
  if (open == std::string_view::npos) return std::nullopt;
  int depth = 0;
  std::size_t element = 0;
  bool in_string = false;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (depth == 1 && element == index && !std::isspace(static_cast<unsigned char>(c)) &&
        c != ',' && c != '[')
      return i;
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      ++depth;
    else if (c == ']' || c == '}') {
      if (--depth == 0) return std::nullopt;
    } else if (c == ',' && depth == 1) {
      ++element;
    }
  }
  return std::nullopt;
}

// Finds a member by its key path, each key searched from where its parent was found: the
// first `"key"` followed by a colon. Where the path cannot be followed, the deepest member
// found (or the top-level value) is named.
SourceLocation locate_keys(std::string_view text, const std::vector<std::string>& keys,
                           const std::string& file) {
  std::size_t pos = text.find_first_not_of(" \t\r\n");
  if (pos == std::string_view::npos) pos = 0;
  std::size_t found = pos;
  for (const auto& key : keys) {
    if (!key.empty() && key.front() == Where::kElement) {
      const auto at = element_offset(text, pos, std::stoul(key.substr(1)));
      if (!at) return io::location_of_offset(text, found, {file});
      found = pos = *at;
      continue;
    }
    const std::string needle = Json(key).dump();
    for (;;) {
      pos = text.find(needle, pos);
      if (pos == std::string_view::npos) return io::location_of_offset(text, found, {file});
      std::size_t after = pos + needle.size();
      while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
      if (after < text.size() && text[after] == ':') break;
      pos += needle.size();
    }
    found = pos;
  }
  return io::location_of_offset(text, found, {file});
}

// --- writing ----------------------------------------------------------------------------

std::string quote(const std::string& s) { return Json(s).dump(); }

std::string format_value(const Value& v) {
  if (v.is_int()) return std::to_string(*v.as_int());
  if (v.is_double()) return format_double(v.as_double());
  return quote(v.as_string());
}

int time_decimals(double us) { return us >= 10.0 ? 1 : us >= 1.0 ? 2 : 3; }

std::string params_field(const ParamSet& params) {
  std::string text = "\"params\": {";
  bool first = true;
  for (const auto& [name, value] : params) {
    text += (first ? "" : ", ") + quote(name) + ": " + format_value(value);
    first = false;
  }
  return text + "}";
}

// One line: {"baseline_us": ..., "params": {...}, "range": [lo, hi], "sized": false,
// "time_us": ...} ("sized" only when false)
std::string bucket_text(const LockBucket& b) {
  std::vector<std::string> fields;
  if (b.baseline_us) fields.push_back("\"baseline_us\": " + format_lockfile_us(*b.baseline_us));
  fields.push_back(params_field(b.params));
  fields.push_back("\"range\": [" + std::to_string(b.range.lo) + ", " +
                   (b.range.hi ? std::to_string(*b.range.hi) : std::string("null")) + "]");
  if (!b.sized) fields.push_back("\"sized\": false");
  if (b.time_us) fields.push_back("\"time_us\": " + format_lockfile_us(*b.time_us));
  std::string text = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) text += (i ? ", " : "") + fields[i];
  return text + "}";
}

void write_entry(std::string& out, const LockEntry& e, const std::string& indent) {
  std::vector<std::string> fields;
  if (e.baseline_us) fields.push_back("\"baseline_us\": " + format_lockfile_us(*e.baseline_us));
  if (e.has_buckets()) {
    std::string buckets = "\"buckets\": [\n";
    for (std::size_t i = 0; i < e.buckets.size(); ++i)
      buckets +=
          indent + "  " + bucket_text(e.buckets[i]) + (i + 1 < e.buckets.size() ? ",\n" : "\n");
    fields.push_back(buckets + indent + "]");
    fields.push_back("\"by\": " + quote(e.by));
  }
  if (device_code_of(e) == DeviceCodeCompiler::nvrtc)
    fields.push_back("\"compiler\": " + quote(e.compiler));
  if (e.is_default) fields.push_back("\"default\": true");
  if (e.flush > 0) fields.push_back("\"flush\": " + std::to_string(e.flush));
  if (!e.has_buckets()) fields.push_back(params_field(e.params));
  if (e.time_us) fields.push_back("\"time_us\": " + format_lockfile_us(*e.time_us));
  if (timed_dirty(e) || timed_with_writeback(e)) fields.push_back("\"timing\": " + quote(e.timing));
  if (!e.tuned_with.empty()) fields.push_back("\"tuned_with\": " + quote(e.tuned_with));
  for (std::size_t i = 0; i < fields.size(); ++i)
    out += indent + fields[i] + (i + 1 < fields.size() ? ",\n" : "\n");
}

// Writes `items` as the members of an object, each through `write_value`.
template <class Map, class WriteValue>
void write_object(std::string& out, const Map& items, const std::string& indent,
                  WriteValue write_value) {
  if (items.empty()) {
    out += "{}";
    return;
  }
  out += "{\n";
  std::size_t i = 0;
  for (const auto& [key, value] : items) {
    out += indent + "  " + quote(key) + ": ";
    write_value(value, indent + "  ");
    out += ++i < items.size() ? ",\n" : "\n";
  }
  out += indent + "}";
}

}  // namespace

bool is_project_path(std::string_view s) {
  if (s.empty() || s.size() > kMaxPath || s.front() == '/' || !only_chars(s, "/_.-+@"))
    return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t sep = s.find('/', start);
    const std::string_view part =
        s.substr(start, sep == std::string_view::npos ? sep : sep - start);
    if (part.empty() || part == "..") return false;
    if (sep == std::string_view::npos) return true;
    start = sep + 1;
  }
}

std::string format_lockfile_us(double us) {
  char buf[400];  // whatever the double: DBL_MAX has 309 digits
  int decimals = time_decimals(us);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, us);
  // Rounding can carry into the next range (9.996 -> "10.00"); format the rounded value
  // with its own range's decimals so that reading and writing again gives the same text.
  const double rounded = std::strtod(buf, nullptr);
  if (time_decimals(rounded) != decimals) {
    decimals = time_decimals(rounded);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded);
  }
  return buf;
}

Result<Lockfile> parse_lockfile(std::string_view text, const std::string& file_name) {
  if (text.size() > kMaxLockfileBytes)
    return make_error("lockfile is larger than " + byte_size_text(kMaxLockfileBytes),
                      {file_name, 1, 1});
  auto root = io::parse_untrusted_json<Json>(text, {file_name});
  if (!root) {
    Error e = root.error();
    if (e.message.rfind("not valid JSON", 0) == 0)
      e.message += " (the lockfile is corrupt; restore it from version control)";
    return e;
  }
  try {
    return read_root(*root);
  } catch (const Invalid& e) {
    return make_error(e.message, locate_keys(text, e.keys, file_name));
  } catch (const Json::exception& e) {
    return make_error(e.what(), locate_keys(text, {}, file_name));
  }
}

std::string format_lockfile(const Lockfile& lock) {
  std::string out = "{\n  \"kernels\": ";
  write_object(out, lock.kernels, "  ", [&](const LockedKernel& k, const std::string& indent) {
    const std::string inner = indent + "  ";
    out += "{\n";
    out += inner + "\"source\": " + quote(k.source) + ",\n";
    out += inner + "\"source_hash\": " + quote(k.source_hash) + ",\n";
    out += inner + "\"targets\": ";
    write_object(out, k.targets, inner,
                 [&](const DeviceEntries& devices, const std::string& arch_indent) {
                   write_object(out, devices, arch_indent,
                                [&](const LockEntry& e, const std::string& entry_indent) {
                                  out += "{\n";
                                  write_entry(out, e, entry_indent + "  ");
                                  out += entry_indent + "}";
                                });
                 });
    if (k.variant) {
      const LockedVariant& v = *k.variant;
      out += ",\n" + inner + "\"variant\": ";
      if (v.has_hashes())
        out += "{\n" + inner + "  \"base_source_hash\": " + quote(v.base_source_hash) + ",\n" +
               inner + "  \"file\": " + quote(v.file) + ",\n" + inner +
               "  \"hash\": " + quote(v.hash) + "\n" + inner + "}";
      else
        out += quote(v.file);
    }
    out += "\n" + indent + "}";
  });
  out += ",\n  \"schema_version\": " + std::to_string(lock.schema_version) + "\n}\n";
  return out;
}

Result<Lockfile> read_lockfile(const std::filesystem::path& path) {
  auto text = read_file_if_exists(path, kMaxLockfileBytes);
  if (!text) return text.error();
  if (!text->has_value())
    return make_error("no lockfile at " + path.string() +
                      " (run `kernelevo tune` to create one, or pass --lockfile FILE)");
  return parse_lockfile(**text, path.string());
}

Result<Lockfile> read_lockfile_or_empty(const std::filesystem::path& path) {
  auto text = read_file_if_exists(path, kMaxLockfileBytes);
  if (!text) return text.error();
  if (!text->has_value()) return Lockfile{};
  return parse_lockfile(**text, path.string());
}

namespace {

// The first time in `lock` that the reader would refuse, as "k sm_90 H200: time_us: why".
std::optional<std::string> times_error(const Lockfile& lock) {
  // Pairs, not structured bindings: clang before 16 cannot capture those in a lambda.
  for (const auto& kernel : lock.kernels)
    for (const auto& arch : kernel.second.targets)
      for (const auto& device : arch.second) {
        const LockEntry& entry = device.second;
        const auto check = [&](const std::optional<double>& t,
                               const std::string& field) -> std::optional<std::string> {
          const auto why = t ? time_error(*t) : std::nullopt;
          if (!why) return std::nullopt;
          std::string at = kernel.first;
          at.append(" ").append(arch.first).append(" ").append(device.first).append(": ");
          return at.append(field).append(": ").append(*why);
        };
        for (std::size_t i = 0; i < entry.buckets.size(); ++i) {
          const std::string b = "buckets[" + std::to_string(i) + "].";
          if (auto why = check(entry.buckets[i].time_us, b + "time_us")) return why;
          if (auto why = check(entry.buckets[i].baseline_us, b + "baseline_us")) return why;
        }
        if (auto why = check(entry.time_us, "time_us")) return why;
        if (auto why = check(entry.baseline_us, "baseline_us")) return why;
      }
  return std::nullopt;
}

}  // namespace

Status update_lockfile(const std::filesystem::path& path,
                       const std::function<Status(Lockfile&)>& change) {
  return update_file_locked(
      path, kMaxLockfileBytes, [&](const std::optional<std::string>& old) -> Result<std::string> {
        Lockfile lock;
        if (old) {
          auto parsed = parse_lockfile(*old, path.string());
          if (!parsed) return parsed.error();
          lock = std::move(*parsed);
        }
        if (auto s = change(lock); !s) return s.error();
        lock.schema_version = required_schema_version(lock);
        // What is written must read: a time the change left that the reader refuses fails
        // here, the file untouched.
        if (auto why = times_error(lock))
          return make_error("not written, the file is left as it was: " + *why, {path.string()});
        return format_lockfile(lock);
      });
}

Status write_lockfile(const std::filesystem::path& path, const Lockfile& lock) {
  return update_lockfile(path, [&](Lockfile& current) {
    current = lock;
    return ok_status();
  });
}

}  // namespace kev
