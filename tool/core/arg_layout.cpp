#include "core/arg_layout.h"

#include <cstring>
#include <limits>
#include <string>

#include "core/scalar_codec.h"

namespace kev {

std::size_t ResolvedProblem::buffer_bytes() const {
  std::size_t total = 0;
  for (const auto& a : args)
    if (__builtin_add_overflow(total, a.bytes, &total)) return SIZE_MAX;  // saturates
  return total;
}

namespace {

NameLookup make_lookup(const ParamSet& params, const Problem& problem) {
  return [&params, &problem](std::string_view name) -> std::optional<std::int64_t> {
    if (auto it = problem.dims.find(std::string(name)); it != problem.dims.end()) return it->second;
    if (auto it = params.find(std::string(name)); it != params.end()) return it->second.as_int();
    return std::nullopt;
  };
}

Result<unsigned> eval_dim(const Expr& e, const NameLookup& lookup, const char* what,
                          std::int64_t max) {
  auto v = e.eval(lookup);
  if (!v) return v.error();
  if (*v < 0 || *v > max) {
    return make_error(std::string(what) + " " + quote_expression(e.text()) + " is " +
                          std::to_string(*v) + ", outside 0.." + std::to_string(max),
                      e.origin());
  }
  return static_cast<unsigned>(*v);
}

}  // namespace

Result<ResolvedProblem> resolve_problem(const KernelSpec& spec, const ParamSet& params,
                                        const Problem& problem) {
  const NameLookup lookup = make_lookup(params, problem);
  ResolvedProblem out;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& a = spec.args[i];
    ResolvedArg r;
    r.index = i;
    if (a.pointer) {
      if (!a.count) return make_error("pointer argument '" + a.name + "' has no count", a.where);
      auto n = a.count->eval(lookup);
      if (!n) return n.error();
      if (*n < 0) {
        return make_error("count of '" + a.name + "' is negative (" + std::to_string(*n) + ")",
                          a.count->origin());
      }
      r.count = *n;
      if (__builtin_mul_overflow(static_cast<std::size_t>(*n), size_of(a.type), &r.bytes)) {
        return make_error("count of '" + a.name + "' is " + std::to_string(*n) + " elements of " +
                              std::to_string(size_of(a.type)) +
                              " bytes: more bytes than 64 bits can count",
                          a.count->origin());
      }
    } else {
      double v = 0.0;
      if (a.float_value) {
        v = *a.float_value;
      } else if (a.value_expr) {
        auto n = a.value_expr->eval(lookup);
        if (!n) return n.error();
        v = static_cast<double>(*n);
        if (a.type == ScalarType::i64 || a.type == ScalarType::u64) {
          r.scalar.resize(8);
          std::memcpy(r.scalar.data(), &*n, 8);  // exact, beyond double's 53 bits
          out.args.push_back(std::move(r));
          continue;
        }
      } else {
        return make_error("scalar argument '" + a.name + "' has no value", a.where);
      }
      r.scalar.resize(size_of(a.type));
      store_element(a.type, r.scalar.data(), 0, v);
    }
    out.args.push_back(std::move(r));
  }
  const auto& l = spec.launch;
  if (l.grid.empty() || l.grid.size() > 3 || l.block.empty() || l.block.size() > 3)
    return make_error("launch needs 1 to 3 grid and block expressions", spec.where);
  for (std::size_t i = 0; i < l.grid.size(); ++i) {
    auto g = eval_dim(l.grid[i], lookup, "grid", i == 0 ? 2147483647 : 65535);
    if (!g) return g.error();
    out.launch.grid[i] = *g;
  }
  for (std::size_t i = 0; i < l.block.size(); ++i) {
    auto b = eval_dim(l.block[i], lookup, "block", 1024);
    if (!b) return b.error();
    out.launch.block[i] = *b;
  }
  if (l.shared_bytes) {
    auto s = eval_dim(*l.shared_bytes, lookup, "shared_bytes", std::numeric_limits<int>::max());
    if (!s) return s.error();
    out.launch.shared_bytes = *s;
  }
  if (spec.metric_bytes) {
    auto b = spec.metric_bytes->eval(lookup);
    if (!b) return b.error();
    out.bytes = *b;
  }
  if (spec.metric_flops) {
    auto f = spec.metric_flops->eval(lookup);
    if (!f) return f.error();
    out.flops = *f;
  }
  return out;
}

}  // namespace kev
