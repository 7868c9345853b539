#include "core/torch_signature.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "core/arg_layout.h"

namespace kev {
namespace {

std::string trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool is_identifier_text(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::optional<std::int64_t> literal(const std::string& s) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return std::nullopt;
  return std::stoll(s);
}

// `text` split at the `*` outside parentheses; empty when any other operator is outside them.
std::vector<std::string> top_level_factors(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && c == '*') {
      out.push_back(trimmed(current));
      current.clear();
      continue;
    }
    current += c;
  }
  out.push_back(trimmed(current));
  return out;
}

// "(rows)" -> "rows": parentheses around a whole factor.
std::string unwrapped(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool whole = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')') --depth;
      if (depth == 0 && i + 1 < s.size()) whole = false;
    }
    if (!whole) break;
    s = trimmed(s.substr(1, s.size() - 2));
  }
  return s;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

const char* to_string(TorchArgRole role) {
  switch (role) {
    case TorchArgRole::input:
      return "input";
    case TorchArgRole::inout:
      return "inout";
    case TorchArgRole::output:
      return "output";
    case TorchArgRole::scratch:
      return "scratch";
    case TorchArgRole::dim_scalar:
      return "dim";
    case TorchArgRole::keyword:
      return "keyword";
    case TorchArgRole::computed:
      return "computed";
  }
  return "input";
}

bool is_python_identifier(std::string_view name) {
  static const std::set<std::string, std::less<>> reserved = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return is_identifier_text(name) && name.size() <= 100 && reserved.count(name) == 0 &&
         name.substr(0, 2) != "__";
}

std::vector<AxisGroup> axis_groups(const std::string& count_text,
                                   const std::vector<std::string>& dims) {
  std::vector<AxisGroup> groups;
  std::int64_t pending = 1;  // literals waiting for the next dimension
  for (const std::string& raw : top_level_factors(count_text)) {
    const std::string f = unwrapped(raw);
    if (auto n = literal(f)) {
      if (*n <= 0 || pending > (std::int64_t{1} << 40) / std::max<std::int64_t>(*n, 1)) return {};
      pending *= *n;
    } else if (is_identifier_text(f) && contains(dims, f)) {
      groups.push_back({f, pending});
      pending = 1;
    } else {
      return {};
    }
  }
  if (pending != 1 || groups.empty()) {
    if (groups.empty()) return {{"", pending}};  // a constant count: one group, no dimension
    groups.back().factor *= pending;
  }
  return groups;
}

Result<TorchSignature> torch_signature(const KernelSpec& spec) {
  TorchSignature sig;
  std::vector<std::string> dims;
  for (const auto& p : spec.problems)
    for (const auto& [name, value] : p.dims)
      if (!contains(dims, name)) dims.push_back(name);

  if (spec.launch.cluster)
    return make_error(spec.id +
                          " launches thread-block clusters (launch.cluster), which export "
                          "--torch does not launch yet",
                      spec.launch.cluster->origin());
  if (const Expr* e = first_using_sm_count(spec))
    return make_error(spec.id +
                          " uses sm_count (the device's multiprocessor count), which export "
                          "--torch does not evaluate yet",
                      e->origin());
  for (const ArgSpec& a : spec.args) {
    if (!is_python_identifier(a.name))
      return make_error("argument '" + a.name + "' of " + spec.id +
                            " cannot be a Python argument name (a keyword or not an identifier)",
                        a.where);
    if (a.tensor_map)
      return make_error("argument '" + a.name + "' of " + spec.id +
                            " is a tensor map, which export --torch does not encode yet",
                        a.where);
    TorchArg t;
    t.name = a.name;
    if (a.pointer) {
      t.role = a.scratch  ? TorchArgRole::scratch
               : a.output ? TorchArgRole::output
               : a.inout  ? TorchArgRole::inout
                          : TorchArgRole::input;
      if (a.count) t.groups = axis_groups(a.count->text(), dims);
    } else if (a.float_value) {
      t.role = TorchArgRole::keyword;
      t.float_default = *a.float_value;
    } else if (a.value_expr && a.value_expr->names().empty()) {
      auto v = a.value_expr->eval([](std::string_view) { return std::nullopt; });
      if (!v) return v.error();
      t.role = TorchArgRole::keyword;
      t.int_default = *v;
    } else if (a.value_expr && a.value_expr->names().size() == 1 &&
               trimmed(unwrapped(a.value_expr->text())) == a.value_expr->names()[0] &&
               contains(dims, a.value_expr->names()[0])) {
      t.role = TorchArgRole::dim_scalar;
      t.dim = a.value_expr->names()[0];
    } else {
      t.role = TorchArgRole::computed;
    }
    sig.args.push_back(std::move(t));
  }

  for (const std::string& d : dims) {
    DimSource src{d, "", 0};
    for (const TorchArg& t : sig.args) {
      if (t.role != TorchArgRole::input && t.role != TorchArgRole::inout) continue;
      const auto it = std::find_if(t.groups.begin(), t.groups.end(),
                                   [&](const AxisGroup& g) { return g.dim == d; });
      if (it != t.groups.end()) {
        src.arg = t.name;
        src.group = static_cast<std::size_t>(it - t.groups.begin());
        break;
      }
    }
    sig.dims.push_back(src);
  }

  // The operator's keyword arguments share one namespace with its tensors.
  std::set<std::string> names;
  for (const TorchArg& t : sig.args)
    if (t.role == TorchArgRole::input || t.role == TorchArgRole::inout ||
        t.role == TorchArgRole::keyword)
      names.insert(t.name);
  for (const DimSource& d : sig.dims) {
    if (!d.arg.empty()) continue;
    if (!is_python_identifier(d.dim))
      return make_error("problem dimension '" + d.dim + "' of " + spec.id +
                            " is given by no tensor's shape and cannot be a Python keyword "
                            "argument",
                        spec.where);
    if (names.count(d.dim) != 0)
      return make_error("problem dimension '" + d.dim + "' of " + spec.id +
                            " is given by no tensor's shape, so it becomes a keyword argument, "
                            "but an argument has that name",
                        spec.where);
  }
  return sig;
}

}  // namespace kev
