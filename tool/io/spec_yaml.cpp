#include "io/spec_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <unordered_set>

#include "core/arg_layout.h"
#include "core/python_source.h"
#include "core/scalar_codec.h"
#include "core/source_lexer.h"

namespace kev {
namespace {

constexpr std::array<std::string_view, 19> kSpecKeys{
    "id",      "kernel", "params",    "let",        "constraints", "problems", "validate",
    "args",    "launch", "reference", "tolerance",  "metrics",     "arch",     "include_dirs",
    "defines", "flags",  "dispatch",  "objectives", "timing"};
constexpr std::array<std::string_view, 2> kObjectivesKeys{"minimize", "within"};
constexpr std::array<std::string_view, 3> kDispatchKeys{"by", "buckets", "entries"};
constexpr std::array<std::string_view, 10> kArgKeys{"name",       "type",      "count", "init",
                                                    "init_value", "output",    "inout", "scratch",
                                                    "value",      "tensor_map"};
constexpr std::array<std::string_view, 4> kTensorMapKeys{"of", "dims", "box", "swizzle"};
constexpr std::array<std::string_view, 4> kLaunchKeys{"grid", "block", "shared_bytes", "cluster"};
constexpr std::array<std::string_view, 2> kToleranceKeys{"rtol", "atol"};
constexpr std::array<std::string_view, 2> kMetricKeys{"bytes", "flops"};

template <std::size_t N>
std::string join(const std::array<std::string_view, N>& keys) {
  std::string s;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) s += ", ";
    s += keys[i];
  }
  return s;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

Value value_of_scalar(const std::string& s) {
  if (auto i = parse_int(s)) return Value(*i);
  if (s.find_first_of(".eE") != std::string::npos &&
      s.find_first_not_of("0123456789.eE+-") == std::string::npos) {
    if (auto d = parse_double(s)) return Value(*d);
  }
  return Value(s);
}

// A spec's `let` entry: a name for an expression that later expressions may use.
struct Let {
  std::string name;
  std::string text;  // the expression with earlier lets expanded, in parentheses
  SourceLocation where;
};

struct Ctx {
  std::string file;
  int line_offset = 1;  // file line of the YAML's line 0
  SourceLocation fallback;
  std::vector<Error>* errors = nullptr;
  const std::vector<Let>* lets = nullptr;  // the current kernel spec's, while it is parsed
  bool triton = false;    // the spec of a Triton kernel (a .py source): its own launch rules
  int column_offset = 0;  // file column of the YAML's column 0, less one (a comment's prefix)

  [[nodiscard]] SourceLocation at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return fallback;
    return {file, m.line + line_offset, m.column + 1 + column_offset};
  }
  // Where a scalar's text starts: after the opening quote of a quoted scalar.
  [[nodiscard]] SourceLocation text_at(const YAML::Node& n) const {
    SourceLocation l = at(n);
    if (n.IsScalar() && n.Tag() == "!" && l.column > 0) l.column += 1;
    return l;
  }
  void error(const SourceLocation& where, std::string message) const {
    errors->push_back(make_error(std::move(message), where));
  }
};

// Calls `on_key(key_node, value_node, key)` for each entry, reporting keys not in `allowed`.
template <std::size_t N, class F>
void for_each_key(const YAML::Node& map, const Ctx& ctx,
                  const std::array<std::string_view, N>& allowed, std::string_view where,
                  F&& on_key) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    const std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      ctx.error(ctx.at(key), "unknown key '" + name + "' in " + std::string(where) +
                                 "; expected one of " + join(allowed));
      continue;
    }
    on_key(key, it->second, name);
  }
}

std::optional<std::string> string_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  if (!n.IsScalar()) {
    ctx.error(ctx.at(n), "'" + std::string(what) + "' must be a string");
    return std::nullopt;
  }
  return n.Scalar();
}

std::optional<bool> bool_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "yes" || s == "on" || s == "True") return true;
    if (s == "false" || s == "no" || s == "off" || s == "False") return false;
  }
  ctx.error(ctx.at(n), "'" + std::string(what) + "' must be true or false");
  return std::nullopt;
}

std::optional<double> number_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  if (n.IsScalar()) {
    if (auto d = parse_double(n.Scalar())) return d;
  }
  ctx.error(ctx.at(n), "'" + std::string(what) + "' must be a number");
  return std::nullopt;
}

constexpr std::size_t kMaxExpandedExpr = 16384;

// `text` with every use of a let's name replaced by the let's expression. Names followed by
// '(' are function calls, and digit runs such as 1e5 are numbers; both are left alone.
// Stops early once longer than `limit`.
std::string expand_lets(std::string_view text, const std::vector<Let>& lets, std::size_t limit) {
  std::string out;
  std::size_t i = 0;
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < text.size() && out.size() <= limit) {
    if (!word_char(text[i])) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    const std::string_view word = text.substr(i, end - i);
    std::size_t next = end;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
    const bool call = next < text.size() && text[next] == '(';
    const auto let =
        std::find_if(lets.begin(), lets.end(), [&](const Let& l) { return l.name == word; });
    if (!std::isdigit(static_cast<unsigned char>(word[0])) && !call && let != lets.end()) {
      out += let->text;
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

// Parses an expression of the spec. Syntax errors are reported against the text as written;
// the expression kept is the one with the spec's lets expanded.
Result<Expr> parse_expr(std::string_view text, const SourceLocation& origin, const Ctx& ctx) {
  auto e = Expr::parse(text, origin);
  if (!e || ctx.lets == nullptr || ctx.lets->empty()) return e;
  const std::string expanded = expand_lets(text, *ctx.lets, kMaxExpandedExpr);
  if (expanded == text) return e;
  // Lets built from lets double in length at each step; a spec cannot make us build a
  // gigabyte expression.
  if (expanded.size() > kMaxExpandedExpr) {
    return make_error("expression " + quote_expression(text) + " is longer than " +
                          std::to_string(kMaxExpandedExpr) +
                          " characters with its lets written out",
                      origin);
  }
  return Expr::parse(expanded, origin);
}

std::optional<Expr> expr_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  if (!n.IsScalar() || n.Scalar().empty()) {
    ctx.error(ctx.at(n), "'" + std::string(what) + "' must be an integer expression");
    return std::nullopt;
  }
  auto e = parse_expr(n.Scalar(), ctx.text_at(n), ctx);
  if (!e) {
    ctx.errors->push_back(e.error());
    return std::nullopt;
  }
  return std::move(e).value();
}

// A list of strings, or a single string.
std::vector<std::string> strings_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
    return out;
  }
  if (!n.IsSequence()) {
    ctx.error(ctx.at(n), "'" + std::string(what) + "' must be a list of strings");
    return out;
  }
  for (const auto& item : n) {
    if (auto s = string_of(item, ctx, what)) out.push_back(*s);
  }
  return out;
}

// A list of expressions, or a single expression.
std::vector<Expr> exprs_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  std::vector<Expr> out;
  if (n.IsScalar()) {
    if (auto e = expr_of(n, ctx, what)) out.push_back(std::move(*e));
    return out;
  }
  if (!n.IsSequence()) {
    ctx.error(ctx.at(n),
              "'" + std::string(what) + "' must be an expression or a list of expressions");
    return out;
  }
  for (const auto& item : n) {
    if (auto e = expr_of(item, ctx, what)) out.push_back(std::move(*e));
  }
  return out;
}

void parse_params(const YAML::Node& n, const Ctx& ctx, KernelSpec& spec) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n), "'params' must be a map of parameter name to a list of values");
    return;
  }
  if (n.size() == 0) {
    ctx.error(ctx.at(n), "'params' is empty; expected at least one tunable parameter");
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    ParamSpec p;
    p.where = ctx.at(it->first);
    p.name = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (!is_identifier(p.name)) {
      ctx.error(p.where, "parameter name '" + p.name + "' is not a valid C identifier");
      continue;
    }
    const YAML::Node values = it->second;
    if (!values.IsSequence() || values.size() == 0) {
      ctx.error(ctx.at(values),
                "parameter '" + p.name + "' must list at least one value, e.g. [128, 256]");
      continue;
    }
    bool ok = true;
    std::unordered_set<Value, ValueHash> listed;
    for (const auto& v : values) {
      if (!v.IsScalar() || v.Scalar().empty()) {
        ctx.error(ctx.at(v), "parameter '" + p.name + "': values must be numbers or names");
        ok = false;
        continue;
      }
      Value value = value_of_scalar(v.Scalar());
      if (!listed.insert(value).second) {
        ctx.error(ctx.at(v), "parameter '" + p.name + "' lists " + v.Scalar() + " twice");
        ok = false;
        continue;
      }
      p.values.push_back(std::move(value));
    }
    if (ok) spec.params.push_back(std::move(p));
  }
}

std::vector<Problem> problems_of(const YAML::Node& n, const Ctx& ctx, std::string_view what) {
  std::vector<Problem> out;
  if (!n.IsSequence()) {
    ctx.error(ctx.at(n), "'" + std::string(what) +
                             "' must be a list of shapes, e.g. [{rows: 4096, cols: 8192}]");
    return out;
  }
  for (const auto& shape : n) {
    if (!shape.IsMap() || shape.size() == 0) {
      ctx.error(ctx.at(shape),
                "each entry of '" + std::string(what) +
                    "' must be a map of dimension name to integer, e.g. {rows: 4096}");
      continue;
    }
    Problem p;
    p.where = ctx.at(shape);
    bool ok = true;
    for (auto it = shape.begin(); it != shape.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (!is_identifier(name)) {
        ctx.error(ctx.at(it->first), "dimension name '" + name + "' is not a valid identifier");
        ok = false;
        continue;
      }
      const auto value = it->second.IsScalar() ? parse_int(it->second.Scalar()) : std::nullopt;
      if (!value) {
        ctx.error(ctx.at(it->second),
                  "dimension '" + name + "' must be an integer" +
                      (it->second.IsScalar() ? ", got '" + it->second.Scalar() + "'" : ""));
        ok = false;
        continue;
      }
      p.dims[name] = *value;
    }
    if (ok) out.push_back(std::move(p));
  }
  return out;
}

struct ParsedType {
  ScalarType type;
  bool pointer;
  bool is_const;
};

std::optional<ParsedType> parse_arg_type(std::string text) {
  ParsedType t{ScalarType::f32, false, false};
  text = trim(text);
  if (!text.empty() && text.back() == '*') {
    t.pointer = true;
    text = trim(std::string_view(text).substr(0, text.size() - 1));
  }
  if (text.rfind("const ", 0) == 0) {
    t.is_const = true;
    text = trim(std::string_view(text).substr(6));
  } else if (text.size() > 6 && text.compare(text.size() - 6, 6, " const") == 0) {
    t.is_const = true;
    text = trim(std::string_view(text).substr(0, text.size() - 6));
  }
  const auto scalar = parse_scalar_type(text);
  if (!scalar) return std::nullopt;
  t.type = *scalar;
  return t;
}

std::optional<InitKind> parse_init_kind(std::string_view s) {
  if (s == "normal") return InitKind::normal;
  if (s == "uniform") return InitKind::uniform;
  if (s == "constant") return InitKind::constant;
  if (s == "iota") return InitKind::iota;
  if (s == "randint") return InitKind::randint;
  if (s == "zeros") return InitKind::zeros;
  return std::nullopt;
}

void set_init_defaults(ArgSpec& a) {
  a.init_low = 0.0;
  a.init_value = 0.0;
  if (a.init == InitKind::uniform) {
    a.init_low = -1.0;
    a.init_value = 1.0;
  } else if (a.init == InitKind::randint) {
    a.init_low = -8.0;
    a.init_value = 8.0;
  }
}

// init: normal | uniform | constant | iota | randint | zeros, or a one-key map giving the
// bounds/value: {uniform: [-1, 1]}, {randint: [0, 10]}, {constant: 2.5}.
bool parse_init(const YAML::Node& n, const Ctx& ctx, ArgSpec& a) {
  const std::string expected = "; expected normal, uniform, constant, iota, randint or zeros";
  if (n.IsScalar()) {
    const auto kind = parse_init_kind(n.Scalar());
    if (!kind) {
      ctx.error(ctx.at(n), "unknown init '" + n.Scalar() + "'" + expected);
      return false;
    }
    a.init = *kind;
    set_init_defaults(a);
    return true;
  }
  if (!n.IsMap() || n.size() != 1) {
    ctx.error(ctx.at(n), "'init' must be a name or a one-key map such as {uniform: [-1, 1]}");
    return false;
  }
  const auto it = n.begin();
  const std::string name = it->first.IsScalar() ? it->first.Scalar() : "?";
  const auto kind = parse_init_kind(name);
  if (!kind) {
    ctx.error(ctx.at(it->first), "unknown init '" + name + "'" + expected);
    return false;
  }
  a.init = *kind;
  set_init_defaults(a);
  const YAML::Node arg = it->second;
  if (a.init == InitKind::uniform || a.init == InitKind::randint) {
    if (!arg.IsSequence() || arg.size() != 2) {
      ctx.error(ctx.at(arg), "'" + name + "' takes two bounds, e.g. {" + name + ": [-1, 1]}");
      return false;
    }
    const auto low = number_of(arg[0], ctx, name + " lower bound");
    const auto high = number_of(arg[1], ctx, name + " upper bound");
    if (!low || !high) return false;
    if (*low > *high) {
      ctx.error(ctx.at(arg), "'" + name + "' bounds must be [low, high] with low <= high");
      return false;
    }
    a.init_low = *low;
    a.init_value = *high;
    return true;
  }
  if (a.init == InitKind::constant) {
    const auto v = number_of(arg, ctx, "constant");
    if (!v) return false;
    a.init_value = *v;
    return true;
  }
  ctx.error(ctx.at(arg), "init '" + name + "' takes no parameters; write 'init: " + name + "'");
  return false;
}

// tensor_map: {of: A, dims: [K, M], box: [64, BM], swizzle: 128}
std::optional<TensorMapSpec> parse_tensor_map(const YAML::Node& n, const Ctx& ctx,
                                              const std::string& label) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n), "'tensor_map' of " + label +
                             " must be a map such as {of: A, dims: [K, M], box: [64, 128], "
                             "swizzle: 128}");
    return std::nullopt;
  }
  const std::size_t errors_before = ctx.errors->size();
  TensorMapSpec t;
  t.where = ctx.at(n);
  bool has_dims = false, has_box = false;
  for_each_key(n, ctx, kTensorMapKeys, "tensor_map",
               [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
                 if (key == "of") {
                   if (auto s = string_of(v, ctx, "tensor_map.of")) t.of = *s;
                 } else if (key == "dims" || key == "box") {
                   if (!v.IsSequence() || v.size() == 0 || v.size() > 5) {
                     ctx.error(ctx.at(v), "'tensor_map." + key +
                                              "' must be a list of 1 to 5 integer expressions, "
                                              "innermost dimension first");
                     return;
                   }
                   (key == "dims" ? has_dims : has_box) = true;
                   (key == "dims" ? t.dims : t.box) = exprs_of(v, ctx, "tensor_map." + key);
                 } else {
                   const auto b = v.IsScalar() ? parse_int(v.Scalar()) : std::nullopt;
                   if (!b || (*b != 0 && *b != 32 && *b != 64 && *b != 128)) {
                     ctx.error(ctx.at(v), "'tensor_map.swizzle' must be 0, 32, 64 or 128 (bytes)");
                     return;
                   }
                   t.swizzle = static_cast<int>(*b);
                 }
               });
  if (t.of.empty())
    ctx.error(t.where, "'tensor_map' of " + label + " needs 'of' (a pointer argument)");
  if (!has_dims) ctx.error(t.where, "'tensor_map' of " + label + " needs 'dims'");
  if (!has_box) ctx.error(t.where, "'tensor_map' of " + label + " needs 'box'");
  if (ctx.errors->size() != errors_before) return std::nullopt;
  if (t.dims.size() != t.box.size()) {
    ctx.error(t.where, "'tensor_map' of " + label + " has " + std::to_string(t.dims.size()) +
                           " dims and " + std::to_string(t.box.size()) +
                           " box sizes; they must have one each per dimension");
    return std::nullopt;
  }
  return t;
}

std::optional<ArgSpec> parse_arg(const YAML::Node& n, const Ctx& ctx) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n),
              "each argument must be a map such as {name: x, type: \"const float*\", count: n}");
    return std::nullopt;
  }
  const std::size_t errors_before = ctx.errors->size();
  ArgSpec a;
  a.where = ctx.at(n);
  // std::optional: assigning to a YAML::Node would rebind the node it refers to.
  std::optional<YAML::Node> type_node;
  std::optional<YAML::Node> value_node;
  std::optional<YAML::Node> init_node;
  std::optional<YAML::Node> init_value_node;
  std::optional<YAML::Node> count_node;
  std::optional<YAML::Node> tensor_map_node;
  bool has_role_flag = false;
  for_each_key(n, ctx, kArgKeys, "argument",
               [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
                 if (key == "name") {
                   if (auto s = string_of(v, ctx, "name")) {
                     if (!is_identifier(*s)) {
                       ctx.error(ctx.at(v),
                                 "argument name '" + *s + "' is not a valid C identifier");
                     } else {
                       a.name = *s;
                     }
                   }
                 } else if (key == "type") {
                   type_node.emplace(v);
                 } else if (key == "count") {
                   count_node.emplace(v);
                 } else if (key == "init") {
                   init_node.emplace(v);
                 } else if (key == "init_value") {
                   init_value_node.emplace(v);
                 } else if (key == "value") {
                   value_node.emplace(v);
                 } else if (key == "tensor_map") {
                   tensor_map_node.emplace(v);
                 } else if (auto b = bool_of(v, ctx, key)) {
                   has_role_flag = true;
                   (key == "output" ? a.output : key == "inout" ? a.inout : a.scratch) = *b;
                 }
               });
  if (ctx.errors->size() != errors_before) return std::nullopt;
  const std::string label = a.name.empty() ? std::string("argument") : "argument '" + a.name + "'";
  if (a.name.empty()) ctx.error(a.where, "argument is missing required key 'name'");
  if (tensor_map_node) {
    for (const auto& [key, node] : {std::pair{"type", type_node},
                                    {"count", count_node},
                                    {"init", init_node},
                                    {"init_value", init_value_node},
                                    {"value", value_node}}) {
      if (node)
        ctx.error(ctx.at(*node), label + " is a tensor map; '" + std::string(key) +
                                     "' does not apply (the map's element type is its buffer's)");
    }
    if (has_role_flag)
      ctx.error(a.where, label + " is a tensor map; output, inout and scratch apply to pointers");
    if (ctx.triton)
      ctx.error(a.where, label + ": tensor maps are for CUDA kernels; Triton makes its own");
    if (ctx.errors->size() != errors_before) return std::nullopt;
    a.tensor_map = parse_tensor_map(*tensor_map_node, ctx, label);
    if (!a.tensor_map) return std::nullopt;
    return a;
  }
  if (!type_node) {
    ctx.error(a.where, label + " is missing required key 'type'");
  } else if (!(*type_node).IsScalar()) {
    ctx.error(ctx.at((*type_node)), "'type' must be a string such as \"const float*\"");
  } else if (auto t = parse_arg_type((*type_node).Scalar())) {
    a.type = t->type;
    a.pointer = t->pointer;
    a.is_const = t->is_const;
  } else {
    ctx.error(ctx.text_at((*type_node)),
              "unknown type '" + (*type_node).Scalar() +
                  "'; expected float, double, half, bfloat16, fp8_e4m3, int8..int64, "
                  "uint8..uint64 or a pointer to one (\"const float*\")");
  }
  if (ctx.errors->size() != errors_before) return std::nullopt;

  if (a.pointer) {
    if (value_node)
      ctx.error(ctx.at((*value_node)),
                label + " is a pointer; 'value' applies to scalars, use 'count'");
    if (!count_node) {
      ctx.error(a.where, "pointer " + label + " needs 'count' (the number of elements)");
    } else if (auto e = expr_of((*count_node), ctx, "count")) {
      a.count = std::move(*e);
    }
    const int roles = int{a.output} + int{a.inout} + int{a.scratch};
    if (roles > 1) ctx.error(a.where, label + " can be only one of output, inout and scratch");
    if (a.is_const && roles > 0)
      ctx.error(a.where, label + " points to const and cannot be " +
                             std::string(a.output  ? "an output"
                                         : a.inout ? "inout"
                                                   : "scratch"));
    if (!is_floating(a.type)) {
      a.init = InitKind::randint;
      set_init_defaults(a);
    }
    if (init_node && parse_init((*init_node), ctx, a) && init_value_node &&
        a.init != InitKind::constant) {
      ctx.error(ctx.at((*init_value_node)), "'init_value' applies to 'init: constant' only");
    }
    if (init_value_node && (!init_node || a.init == InitKind::constant)) {
      if (auto v = number_of((*init_value_node), ctx, "init_value")) {
        a.init = InitKind::constant;
        a.init_value = *v;
      }
    }
  } else {
    for (const auto& [flag, set] :
         {std::pair{"output", a.output}, {"inout", a.inout}, {"scratch", a.scratch}}) {
      if (set)
        ctx.error(a.where, "'" + std::string(flag) + "' applies to pointer arguments only; " +
                               label + " is a scalar");
    }
    if (count_node)
      ctx.error(ctx.at((*count_node)), label + " is a scalar; 'count' applies to pointers");
    if (init_node || init_value_node)
      ctx.error(ctx.at(init_node ? *init_node : *init_value_node),
                label + " is a scalar; 'init' applies to pointers, use 'value'");
    if (!value_node) {
      ctx.error(a.where, "scalar " + label + " needs 'value' (an integer expression" +
                             std::string(is_floating(a.type) ? " or a float literal)" : ")"));
    } else if (!(*value_node).IsScalar() || (*value_node).Scalar().empty()) {
      ctx.error(ctx.at((*value_node)), "'value' must be an integer expression or a float literal");
    } else {
      auto e = parse_expr((*value_node).Scalar(), ctx.text_at((*value_node)), ctx);
      if (e) {
        a.value_expr = std::move(e).value();
      } else if (auto d =
                     is_floating(a.type) ? parse_double((*value_node).Scalar()) : std::nullopt) {
        a.float_value = *d;
      } else {
        ctx.errors->push_back(e.error());
      }
    }
  }
  if (ctx.errors->size() != errors_before) return std::nullopt;
  return a;
}

void parse_launch(const YAML::Node& n, const Ctx& ctx, KernelSpec& spec, bool& has_grid,
                  bool& has_block) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n), "'launch' must be a map such as {grid: [\"rows\"], block: [\"BLOCK\"]}");
    has_grid = has_block = true;  // already reported
    return;
  }
  for_each_key(n, ctx, kLaunchKeys, "launch",
               [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
                 if (key == "shared_bytes" || key == "cluster") {
                   if (auto e = expr_of(v, ctx, "launch." + key))
                     (key == "cluster" ? spec.launch.cluster : spec.launch.shared_bytes) =
                         std::move(*e);
                   return;
                 }
                 const std::string what = "launch." + key;
                 auto& target = key == "grid" ? spec.launch.grid : spec.launch.block;
                 (key == "grid" ? has_grid : has_block) = true;
                 if (v.IsSequence() && (v.size() == 0 || v.size() > 3)) {
                   ctx.error(ctx.at(v), "'" + what + "' has " + std::to_string(v.size()) +
                                            " expressions; expected 1 to 3 (x, y, z)");
                   return;
                 }
                 target = exprs_of(v, ctx, what);
               });
}

// `objectives: {minimize: [registers, local_bytes], within: 0.02}`.
std::optional<ObjectivesSpec> parse_objectives(const YAML::Node& n, const Ctx& ctx) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n),
              "'objectives' must be a map such as {minimize: [registers], within: 0.02}");
    return std::nullopt;
  }
  ObjectivesSpec o;
  bool ok = true;
  for_each_key(
      n, ctx, kObjectivesKeys, "objectives",
      [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
        if (key == "within") {
          const auto d = v.IsScalar() ? parse_double(v.Scalar()) : std::nullopt;
          if (!d || !(*d >= 0.0 && *d <= ObjectivesSpec::kMaxWithin)) {
            ctx.error(ctx.at(v),
                      "'objectives.within' must be a number from 0 to 0.5 (the share "
                      "slower than the fastest a configuration may be, 0.02 = 2%)");
            ok = false;
            return;
          }
          o.within = *d;
          return;
        }
        for (const std::string& name : strings_of(v, ctx, "objectives.minimize")) {
          const auto r = parse_resource(name);
          if (!r) {
            ctx.error(ctx.at(v),
                      "'objectives.minimize' names '" + name + "'; expected " + resource_names());
            ok = false;
          } else if (std::find(o.minimize.begin(), o.minimize.end(), *r) != o.minimize.end()) {
            ctx.error(ctx.at(v), "'objectives.minimize' names '" + name + "' twice");
            ok = false;
          } else {
            o.minimize.push_back(*r);
          }
        }
      });
  if (ok && o.minimize.empty()) {
    ctx.error(ctx.at(n), "'objectives.minimize' must name at least one of " + resource_names());
    ok = false;
  }
  if (!ok) return std::nullopt;
  return o;
}

// `dispatch: {by: [cols], buckets: [[0, 2048], [2048, null]], entries: [launch]}`, or
// `buckets: per_problem` (made into buckets once the problems are known: finish_dispatch).
std::optional<DispatchSpec> parse_dispatch(const YAML::Node& n, const Ctx& ctx) {
  if (!n.IsMap()) {
    ctx.error(ctx.at(n),
              "'dispatch' must be a map such as {by: [cols], buckets: [[0, 2048], [2048, null]]}");
    return std::nullopt;
  }
  DispatchSpec d;
  d.where = ctx.at(n);
  bool has_by = false;
  bool has_buckets = false;
  const std::size_t before = ctx.errors->size();
  for_each_key(
      n, ctx, kDispatchKeys, "dispatch",
      [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
        if (key == "by") {
          has_by = true;
          const std::vector<std::string> dims = strings_of(v, ctx, "dispatch.by");
          if (dims.size() != 1) {
            ctx.error(ctx.at(v), "'dispatch.by' must name one problem dimension (got " +
                                     std::to_string(dims.size()) +
                                     "); buckets split a single dimension");
            return;
          }
          if (!is_identifier(dims.front())) {
            ctx.error(ctx.text_at(v.IsSequence() ? v[0] : v),
                      "'dispatch.by' must be a dimension name, got '" + dims.front() + "'");
            return;
          }
          d.by = dims.front();
        } else if (key == "buckets") {
          has_buckets = true;
          if (v.IsScalar() && v.Scalar() == "per_problem") {
            d.per_problem = true;
            return;
          }
          if (!v.IsSequence() || v.size() == 0) {
            ctx.error(ctx.at(v),
                      "'dispatch.buckets' must be per_problem or a list of [low, high] "
                      "ranges, such as [[0, 2048], [2048, null]]");
            return;
          }
          for (const auto& b : v) {
            const auto bound = [&](const YAML::Node& x,
                                   bool upper) -> std::optional<std::optional<std::int64_t>> {
              if (upper && x.IsNull()) return std::optional<std::int64_t>{};
              if (x.IsScalar())
                if (auto i = parse_int(x.Scalar())) return std::optional<std::int64_t>{*i};
              ctx.error(ctx.at(x), std::string("a bucket's ") + (upper ? "upper" : "lower") +
                                       " bound must be an integer" +
                                       (upper ? " or null (no upper bound)" : "") +
                                       (x.IsScalar() ? ", got '" + x.Scalar() + "'" : ""));
              return std::nullopt;
            };
            if (!b.IsSequence() || b.size() != 2) {
              ctx.error(ctx.at(b),
                        "each bucket must be a [low, high] pair (high exclusive, null: "
                        "no upper bound)");
              continue;
            }
            const auto lo = bound(b[0], false);
            const auto hi = bound(b[1], true);
            if (!lo || !hi) continue;
            d.buckets.push_back({**lo, *hi});
            d.bucket_where.push_back(ctx.at(b));
          }
          if (d.buckets.size() > kMaxBuckets) {
            ctx.error(ctx.at(v), "'dispatch.buckets' lists " + std::to_string(d.buckets.size()) +
                                     " buckets; at most " + std::to_string(kMaxBuckets));
            return;
          }
          if (ctx.errors->size() != before) return;
          if (auto why = bucket_ranges_error(d.buckets)) {
            std::size_t at = 0;  // the bucket the message names
            for (std::size_t i = 0; i < d.buckets.size(); ++i)
              if (why->find("bucket " + std::to_string(i) + " ") == 0) at = i;
            ctx.error(d.bucket_where[at], "dispatch.buckets: " + *why);
          }
        } else if (key == "entries") {
          for (auto& e : strings_of(v, ctx, "dispatch.entries")) {
            if (!is_identifier(e)) {
              ctx.error(ctx.at(v), "'dispatch.entries' must list function names, got '" + e + "'");
              continue;
            }
            d.entries.push_back(std::move(e));
          }
        }
      });
  if (!has_by) ctx.error(d.where, "missing required key 'dispatch.by' (the problem dimension)");
  if (!has_buckets)
    ctx.error(d.where, "missing required key 'dispatch.buckets' (ranges, or per_problem)");
  if (ctx.errors->size() != before) return std::nullopt;
  return d;
}

// `buckets: per_problem`: one bucket [v, v + 1) per distinct value of the dimension among
// the problems, in increasing order.
void finish_dispatch(DispatchSpec& d, const std::vector<Problem>& problems) {
  if (!d.per_problem) return;
  std::map<std::int64_t, SourceLocation> values;
  for (const Problem& p : problems)
    if (auto v = p.dims.find(d.by); v != p.dims.end()) values.emplace(v->second, p.where);
  for (const auto& [v, where] : values) {
    if (v == std::numeric_limits<std::int64_t>::max()) {
      d.buckets.push_back({v, std::nullopt});
    } else {
      d.buckets.push_back({v, v + 1});
    }
    d.bucket_where.push_back(where);
  }
}

struct NodeParse {
  std::optional<KernelSpec> spec;
  bool complete = false;  // false: `spec` is partial, its params and problems are sound
};

// `let: {RT: "min(MAX_RT, 32 * ceil_div(cols, 32 * VEC))"}`: names for expressions, each
// usable in the lets after it and in every other expression of the spec.
std::vector<Let> parse_lets(const YAML::Node& n, const Ctx& ctx) {
  std::vector<Let> lets;
  if (!n.IsMap()) {
    ctx.error(ctx.at(n), "'let' must be a map of name to expression, such as {RT: \"BLOCK / 32\"}");
    return lets;
  }
  Ctx inner = ctx;
  inner.lets = &lets;
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    const SourceLocation where = ctx.at(it->first);
    if (!is_identifier(name) || name == "min" || name == "max" || name == "ceil_div" ||
        name == kSmCountName) {
      ctx.error(where, "let name '" + name +
                           "' must be an identifier other than min, max, ceil_div and sm_count");
      continue;
    }
    if (std::any_of(lets.begin(), lets.end(), [&](const Let& l) { return l.name == name; })) {
      ctx.error(where, "let '" + name + "' is defined twice");
      continue;
    }
    if (auto e = expr_of(it->second, inner, "let." + name))
      lets.push_back({name, "(" + e->text() + ")", where});
  }
  return lets;
}

// A let may not hide a parameter or a problem dimension: the expressions would mean
// something other than they say.
void check_let_names(const std::vector<Let>& lets, const KernelSpec& spec, const Ctx& ctx) {
  for (const Let& l : lets) {
    const bool param = std::any_of(spec.params.begin(), spec.params.end(),
                                   [&](const ParamSpec& p) { return p.name == l.name; });
    const auto has_dim = [&](const std::vector<Problem>& shapes) {
      return std::any_of(shapes.begin(), shapes.end(), [&](const Problem& p) {
        return std::any_of(p.dims.begin(), p.dims.end(),
                           [&](const auto& d) { return d.first == l.name; });
      });
    };
    if (param || has_dim(spec.problems) || has_dim(spec.validate))
      ctx.error(l.where, "let '" + l.name + "' has the name of a " +
                             (param ? "parameter" : "problem dimension") + "; rename it");
  }
}

NodeParse parse_spec_fields(const YAML::Node& node, const Ctx& ctx, const std::vector<Let>& lets,
                            bool project, const std::string& default_kernel,
                            const SourceLocation& where, std::size_t errors_before);

// A Triton kernel's launch: the grid is the spec's, the block is 32 * num_warps threads and
// the dynamic shared memory is what Triton's compile reports, so neither may be written; the
// CUDA compile settings (defines, flags, include directories) and dispatch's host entries do
// not apply.
void apply_triton_rules(const YAML::Node& node, const Ctx& ctx, KernelSpec& spec, bool has_launch,
                        bool has_grid, bool has_block, const SourceLocation& where) {
  spec.language = SourceLanguage::triton;
  if (!has_launch || !has_grid)
    ctx.error(where,
              "missing required key 'launch.grid' (a Triton kernel's launch grid, in "
              "programs: {grid: [\"rows\"]})");
  const YAML::Node launch = node["launch"];
  if (has_block && launch && launch.IsMap() && launch["block"])
    ctx.error(ctx.at(launch["block"]),
              "a Triton kernel's block is 32 * num_warps threads: remove 'launch.block' and tune "
              "num_warps instead");
  if (launch && launch.IsMap() && launch["shared_bytes"])
    ctx.error(ctx.at(launch["shared_bytes"]),
              "Triton's compile gives a Triton kernel's shared memory: remove "
              "'launch.shared_bytes'");
  if (launch && launch.IsMap() && launch["cluster"])
    ctx.error(ctx.at(launch["cluster"]),
              "a Triton kernel's clusters come from num_ctas: remove 'launch.cluster' and tune "
              "num_ctas instead");
  for (const char* key : {"defines", "flags", "include_dirs"}) {
    if (const YAML::Node v = node[key])
      ctx.error(ctx.at(v), std::string("'") + key +
                               "' is not supported for a Triton kernel (it applies to CUDA "
                               "compiles only)");
  }
  // A Triton kernel's generated launcher picks the bucket's image itself: there are no host
  // functions to rename per winner.
  if (const YAML::Node d = node["dispatch"]; d && d.IsMap() && d["entries"])
    ctx.error(ctx.at(d["entries"]),
              "'dispatch.entries' does not apply to a Triton kernel: its generated launcher picks "
              "the bucket's image itself");
  const bool warps = std::any_of(spec.params.begin(), spec.params.end(),
                                 [](const ParamSpec& p) { return p.name == "num_warps"; });
  auto block = Expr::parse(warps ? "32 * num_warps" : "128", where);
  if (block) spec.launch.block = {std::move(block).value()};
}

NodeParse parse_spec_node(const YAML::Node& node, const Ctx& ctx, bool project,
                          const std::string& default_kernel, const SourceLocation& where) {
  const std::size_t errors_before = ctx.errors->size();
  if (!node.IsMap()) {
    ctx.error(node.IsDefined() && !node.IsNull() ? ctx.at(node) : where,
              "a kernel spec must be a YAML map with keys such as kernel, params, args, launch");
    return {};
  }
  std::vector<Let> lets;
  if (const YAML::Node let_node = node["let"]) lets = parse_lets(let_node, ctx);
  Ctx with_lets = ctx;
  with_lets.lets = &lets;
  return parse_spec_fields(node, with_lets, lets, project, default_kernel, where, errors_before);
}

NodeParse parse_spec_fields(const YAML::Node& node, const Ctx& ctx, const std::vector<Let>& lets,
                            bool project, const std::string& default_kernel,
                            const SourceLocation& where, std::size_t errors_before) {
  bool shapes_sound = true;  // params, problems and validate parsed without error
  KernelSpec spec;
  spec.where = where;
  spec.reference = "default";
  bool has_params = false;
  bool has_args = false;
  bool has_launch = false;
  bool has_grid = false;
  bool has_block = false;
  std::optional<std::string> id;
  std::optional<std::string> kernel;
  std::string source;
  const auto handle = [&](const YAML::Node& key_node, const YAML::Node& v, const std::string& key) {
    if (key == "let") {
      // parsed first, by parse_spec_node
    } else if (key == "source") {
      if (auto s = string_of(v, ctx, key)) source = *s;
    } else if (key == "id") {
      if (auto s = string_of(v, ctx, key)) {
        const bool ok = !s->empty() && std::all_of(s->begin(), s->end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
        if (ok) {
          id = *s;
        } else {
          ctx.error(ctx.text_at(v),
                    "id '" + *s + "' may contain only letters, digits, '_', '-' and '.'");
        }
      }
    } else if (key == "kernel") {
      if (auto s = string_of(v, ctx, key)) kernel = trim(*s);
    } else if (key == "params") {
      has_params = true;
      const std::size_t before = ctx.errors->size();
      parse_params(v, ctx, spec);
      shapes_sound = shapes_sound && ctx.errors->size() == before;
    } else if (key == "constraints") {
      spec.constraints = exprs_of(v, ctx, "constraints");
    } else if (key == "problems" || key == "validate") {
      const std::size_t before = ctx.errors->size();
      (key == "problems" ? spec.problems : spec.validate) = problems_of(v, ctx, key);
      shapes_sound = shapes_sound && ctx.errors->size() == before;
    } else if (key == "args") {
      has_args = true;
      if (!v.IsSequence() || v.size() == 0) {
        ctx.error(ctx.at(v), "'args' must be a list of the kernel's arguments, in order");
        return;
      }
      for (const auto& a : v) {
        if (auto arg = parse_arg(a, ctx)) {
          const auto dup = std::find_if(spec.args.begin(), spec.args.end(),
                                        [&](const ArgSpec& o) { return o.name == arg->name; });
          if (dup != spec.args.end()) {
            ctx.error(arg->where, "argument '" + arg->name + "' is listed twice (first at " +
                                      dup->where.to_string() + ")");
          } else {
            spec.args.push_back(std::move(*arg));
          }
        }
      }
    } else if (key == "launch") {
      has_launch = true;
      parse_launch(v, ctx, spec, has_grid, has_block);
    } else if (key == "reference") {
      if (v.IsMap()) {
        for_each_key(v, ctx, std::array<std::string_view, 2>{"source", "kernel"}, "reference",
                     [&](const YAML::Node&, const YAML::Node& r, const std::string& k) {
                       if (auto s = string_of(r, ctx, "reference." + k))
                         (k == "source" ? spec.reference_source : spec.reference) = trim(*s);
                     });
        if (spec.reference.empty() || spec.reference_source.empty())
          ctx.error(ctx.at(v),
                    "'reference' as a map needs both 'source' (a .cu or .py file, "
                    "relative to this one) and 'kernel'");
      } else if (auto s = string_of(v, ctx, key)) {
        spec.reference = trim(*s);
      }
    } else if (key == "tolerance") {
      if (!v.IsMap()) {
        ctx.error(ctx.at(v), "'tolerance' must be a map such as {rtol: 1e-5, atol: 1e-6}");
        return;
      }
      for_each_key(v, ctx, kToleranceKeys, "tolerance",
                   [&](const YAML::Node&, const YAML::Node& t, const std::string& k) {
                     const auto d = t.IsScalar() ? parse_double(t.Scalar()) : std::nullopt;
                     if (!d || *d < 0) {
                       ctx.error(ctx.at(t), "'tolerance." + k + "' must be a non-negative number");
                       return;
                     }
                     (k == "rtol" ? spec.tolerance.rtol : spec.tolerance.atol) = *d;
                   });
    } else if (key == "metrics") {
      if (!v.IsMap()) {
        ctx.error(ctx.at(v), "'metrics' must be a map such as {bytes: \"2*n*4\", flops: \"n\"}");
        return;
      }
      for_each_key(v, ctx, kMetricKeys, "metrics",
                   [&](const YAML::Node&, const YAML::Node& m, const std::string& k) {
                     auto e = expr_of(m, ctx, "metrics." + k);
                     (k == "bytes" ? spec.metric_bytes : spec.metric_flops) = std::move(e);
                   });
    } else if (key == "arch") {
      if (auto s = string_of(v, ctx, key)) {
        const bool ok =
            s->size() > 3 && s->rfind("sm_", 0) == 0 &&
            std::isdigit(static_cast<unsigned char>((*s)[3])) &&
            std::all_of(s->begin() + 3, s->end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c)) || c == 'a' || c == 'f';
            });
        if (ok) {
          spec.arch = *s;
        } else {
          ctx.error(ctx.text_at(v),
                    "'arch' must name an architecture such as sm_90 or sm_90a, got '" + *s + "'");
        }
      }
    } else if (key == "dispatch") {
      spec.dispatch = parse_dispatch(v, ctx);
    } else if (key == "objectives") {
      spec.objectives = parse_objectives(v, ctx);
    } else if (key == "timing") {
      if (auto s = string_of(v, ctx, key)) {
        if (*s == "alone" || *s == "auto") {
          spec.time_alone = *s == "alone";
        } else {
          ctx.error(ctx.text_at(v),
                    "'timing' must be 'auto' (launches under 20 us timed back to back in "
                    "batches) or 'alone' (every launch alone after an L2 flush), got '" +
                        *s + "'");
        }
      }
    } else if (key == "include_dirs") {
      spec.include_dirs = strings_of(v, ctx, key);
    } else if (key == "defines") {
      spec.defines = strings_of(v, ctx, key);
    } else if (key == "flags") {
      spec.flags = strings_of(v, ctx, key);
    }
    (void)key_node;
  };
  if (project) {
    std::array<std::string_view, kSpecKeys.size() + 1> keys{};
    std::copy(kSpecKeys.begin(), kSpecKeys.end(), keys.begin());
    keys.back() = "source";
    for_each_key(node, ctx, keys, "kernel spec", handle);
  } else {
    for_each_key(node, ctx, kSpecKeys, "kernel spec", handle);
  }
  if (project) {
    if (source.empty())
      ctx.error(where, "missing required key 'source' (the .cu file holding the kernel)");
    spec.source = source;
  }
  if (kernel) {
    spec.kernel = *kernel;
  } else if (!default_kernel.empty()) {
    spec.kernel = default_kernel;
  } else {
    ctx.error(where, "missing required key 'kernel' (the kernel's entry point)");
  }
  if (!has_params) ctx.error(where, "missing required key 'params' (the tunable parameters)");
  if (!has_args) ctx.error(where, "missing required key 'args' (the kernel's arguments, in order)");
  if (ctx.triton) {
    apply_triton_rules(node, ctx, spec, has_launch, has_grid, has_block, where);
  } else if (!has_launch) {
    ctx.error(where, "missing required key 'launch' ({grid: [...], block: [...]})");
  } else {
    if (!has_grid) ctx.error(where, "missing required key 'launch.grid'");
    if (!has_block) ctx.error(where, "missing required key 'launch.block'");
  }
  check_let_names(lets, spec, ctx);
  if (spec.dispatch) finish_dispatch(*spec.dispatch, spec.problems);
  if (id) {
    spec.id = *id;
  } else {
    const auto angle = spec.kernel.find('<');
    spec.id = trim(std::string_view(spec.kernel).substr(0, angle));
  }
  NodeParse out;
  out.complete = ctx.errors->size() == errors_before;
  if (out.complete || (shapes_sound && has_params && !spec.params.empty()))
    out.spec = std::move(spec);
  return out;
}

// yaml-cpp recurses once per nesting level; bound it before parsing so that hostile input
// ("[[[[...") cannot exhaust the stack.
constexpr int kMaxYamlNesting = 64;

std::optional<Error> check_nesting(std::string_view yaml, const Ctx& ctx) {
  int depth = 0;
  int line = 0;
  int column = 0;
  for (const char c : yaml) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxYamlNesting)
        return make_error(
            "YAML nested more than " + std::to_string(kMaxYamlNesting) + " levels deep",
            {ctx.file, line + ctx.line_offset, column});
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

Error yaml_error(const YAML::Exception& e, const Ctx& ctx, std::string_view what) {
  SourceLocation where = ctx.fallback;
  if (e.mark.line >= 0)
    where = {ctx.file, e.mark.line + ctx.line_offset, e.mark.column + 1 + ctx.column_offset};
  return make_error("invalid YAML in " + std::string(what) + ": " + e.msg, where);
}

}  // namespace

std::vector<MarkedBlock> find_marked_blocks(std::string_view source, const std::string& file) {
  std::vector<MarkedBlock> blocks;
  const std::vector<Token> tokens = lex_cuda(source);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != TokenKind::comment) continue;
    const std::string_view text = t.text(source);
    if (text.substr(0, 2) != "/*") continue;
    std::size_t at = 2;
    while (at < text.size() && (text[at] == '*' || text[at] == ' ' || text[at] == '\t')) ++at;
    if (text.compare(at, 10, "@kernelevo") != 0) continue;
    const std::size_t after = at + 10;
    if (after < text.size() && !std::isspace(static_cast<unsigned char>(text[after])) &&
        text[after] != '*')
      continue;
    MarkedBlock b;
    const std::size_t mark_offset = t.begin + at;
    const std::size_t line_start = source.rfind('\n', mark_offset);
    b.mark = {file, line_of(source, mark_offset),
              static_cast<int>(mark_offset -
                               (line_start == std::string_view::npos ? 0 : line_start + 1)) +
                  1};
    const std::size_t body_end =
        text.size() >= 4 && text.substr(text.size() - 2) == "*/" ? text.size() - 2 : text.size();
    const std::size_t newline = text.find('\n', after);
    if (newline != std::string_view::npos && newline < body_end) {
      b.yaml = std::string(text.substr(newline + 1, body_end - newline - 1));
      b.yaml_first_line = b.mark.line + 1;
    } else {
      b.yaml_first_line = b.mark.line;
    }
    const bool off_before =
        i > 0 && tokens[i - 1].kind == TokenKind::comment &&
        tokens[i - 1].text(source).find("clang-format off") != std::string_view::npos;
    const bool on_after =
        i + 1 < tokens.size() && tokens[i + 1].kind == TokenKind::comment &&
        tokens[i + 1].text(source).find("clang-format on") != std::string_view::npos;
    b.guarded = off_before && on_after;
    for (std::size_t j = i + 1; j < tokens.size(); ++j) {
      if (tokens[j].kind != TokenKind::identifier || tokens[j].text(source) != "__global__")
        continue;
      b.kernel_line = line_of(source, tokens[j].begin);
      for (std::size_t k = j + 1; k + 1 < tokens.size(); ++k) {
        const std::string_view name = tokens[k].text(source);
        if (tokens[k].kind == TokenKind::punct && (name == ";" || name == "{")) break;
        if (tokens[k].kind == TokenKind::identifier && name.substr(0, 2) != "__" &&
            tokens[k + 1].text(source) == "(") {
          b.kernel_name = std::string(name);
          break;
        }
      }
      break;
    }
    blocks.push_back(std::move(b));
  }
  return blocks;
}

std::vector<MarkedBlock> find_python_marked_blocks(std::string_view source,
                                                   const std::string& file) {
  std::vector<MarkedBlock> blocks;
  const PySource py = scan_python(source);
  const auto& cs = py.comments;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const PyComment& c = cs[i];
    const std::size_t at = c.text.find_first_not_of(" \t");
    if (!c.own_line || at == std::string::npos || c.text.compare(at, 10, "@kernelevo") != 0)
      continue;
    const std::size_t after = at + 10;
    if (after < c.text.size() && !std::isspace(static_cast<unsigned char>(c.text[after]))) continue;
    MarkedBlock b;
    b.triton = true;
    b.guarded = true;  // formatters leave comments alone
    b.mark = {file, c.line, c.column + 1 + static_cast<int>(at)};
    b.yaml_first_line = c.line + 1;
    b.yaml_column_offset = c.column + 1;  // "# " before the YAML
    int last = c.line;
    std::size_t j = i + 1;
    for (; j < cs.size() && cs[j].own_line && cs[j].line == last + 1 && cs[j].column == c.column;
         ++j) {
      std::string_view t = cs[j].text;
      if (!t.empty() && t[0] == ' ') t.remove_prefix(1);
      b.yaml += std::string(t) + "\n";
      last = cs[j].line;
    }
    for (const PyFunction& f : py.functions) {
      if (f.first_line <= last) continue;
      b.kernel_line = f.def_line;
      b.kernel_name = f.name;
      break;
    }
    blocks.push_back(std::move(b));
    i = j - 1;
  }
  return blocks;
}

SpecParse parse_marked_block(const MarkedBlock& block, const std::string& file) {
  SpecParse out;
  Ctx ctx;
  ctx.file = file;
  ctx.line_offset = block.yaml_first_line;
  ctx.fallback = block.mark;
  ctx.errors = &out.errors;
  ctx.triton = block.triton;
  ctx.column_offset = block.yaml_column_offset;
  if (!block.guarded) {
    out.warnings.push_back(make_error(
        "@kernelevo block is not wrapped in '// clang-format off' and '// clang-format on'; "
        "a formatter may reflow its YAML",
        block.mark));
  }
  if (auto deep = check_nesting(block.yaml, ctx)) {
    out.errors.push_back(std::move(*deep));
    return out;
  }
  try {
    const YAML::Node root = YAML::Load(block.yaml);
    NodeParse parsed = parse_spec_node(root, ctx, false, block.kernel_name, block.mark);
    if (parsed.spec) {
      KernelSpec& spec = *parsed.spec;
      spec.source = file;
      if (!spec.reference_source.empty())
        spec.reference_source = (std::filesystem::path(file).parent_path() / spec.reference_source)
                                    .lexically_normal()
                                    .generic_string();
      spec.kernel_line = block.kernel_line;
      spec.has_format_guard = block.guarded;
      (parsed.complete ? out.specs : out.partial).push_back(std::move(spec));
    }
  } catch (const YAML::Exception& e) {
    out.errors.push_back(yaml_error(e, ctx, "@kernelevo block"));
  }
  return out;
}

SpecParse parse_project_yaml(std::string_view yaml, const std::string& file) {
  SpecParse out;
  Ctx ctx;
  ctx.file = file;
  ctx.line_offset = 1;
  ctx.fallback = {file, 1, 1};
  ctx.errors = &out.errors;
  if (auto deep = check_nesting(yaml, ctx)) {
    out.errors.push_back(std::move(*deep));
    return out;
  }
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsDefined() || root.IsNull()) return out;
    std::optional<YAML::Node> kernels;
    if (root.IsMap()) {
      // `llm:` configures `kernelevo evolve` (io/llm_settings.h), which reads and checks it.
      bool has_llm = false;
      for_each_key(root, ctx, std::array<std::string_view, 2>{"kernels", "llm"}, "project file",
                   [&](const YAML::Node&, const YAML::Node& v, const std::string& key) {
                     if (key == "kernels")
                       kernels.emplace(v);
                     else
                       has_llm = true;
                   });
      if (!kernels) {
        if (out.errors.empty() && !has_llm)
          ctx.error(ctx.at(root), "missing required key 'kernels' (the list of kernel specs)");
        return out;
      }
    }
    const YAML::Node list = kernels ? *kernels : root;
    if (!list.IsSequence()) {
      ctx.error(ctx.at(list),
                "a project file must be a list of kernel specs, or a map with a 'kernels:' list");
      return out;
    }
    const std::filesystem::path dir = std::filesystem::path(file).parent_path();
    for (const auto& entry : list) {
      NodeParse parsed = parse_spec_node(entry, ctx, true, "", ctx.at(entry));
      if (parsed.spec) {
        parsed.spec->source = (dir / parsed.spec->source).lexically_normal().generic_string();
        if (!parsed.spec->reference_source.empty())
          parsed.spec->reference_source =
              (dir / parsed.spec->reference_source).lexically_normal().generic_string();
        (parsed.complete ? out.specs : out.partial).push_back(std::move(*parsed.spec));
      }
    }
  } catch (const YAML::Exception& e) {
    out.errors.push_back(yaml_error(e, ctx, "project file"));
  }
  return out;
}

}  // namespace kev
