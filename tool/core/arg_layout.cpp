#include "core/arg_layout.h"

#include <algorithm>
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

NameLookup make_lookup(const ParamSet& params, const Problem& problem,
                       std::optional<int> sm_count) {
  return [&params, &problem, sm_count](std::string_view name) -> std::optional<std::int64_t> {
    if (auto it = problem.dims.find(std::string(name)); it != problem.dims.end()) return it->second;
    if (auto it = params.find(std::string(name)); it != params.end()) return it->second.as_int();
    if (name == kSmCountName && sm_count) return *sm_count;
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

constexpr std::uint64_t kMaxTensorDim = std::uint64_t{1} << 32;
constexpr std::uint64_t kMaxTensorStride = std::uint64_t{1} << 40;

// The tensor map of argument `i` (spec.args[i].tensor_map) over its buffer, whose count
// `out.args` already holds. Box rules break only with a configuration (an error); dimension
// and stride rules with a problem the driver cannot describe (unencodable).
Result<ResolvedTensorMap> resolve_tensor_map(const KernelSpec& spec, std::size_t i,
                                             const NameLookup& lookup, const ResolvedProblem& out) {
  const ArgSpec& a = spec.args[i];
  const TensorMapSpec& t = *a.tensor_map;
  ResolvedTensorMap m;
  const auto target = std::find_if(spec.args.begin(), spec.args.end(),
                                   [&](const ArgSpec& b) { return b.name == t.of; });
  if (target == spec.args.end() || !target->pointer || t.dims.size() != t.box.size() ||
      t.dims.empty() || t.dims.size() > 5)
    return make_error("tensor map '" + a.name + "' is malformed", t.where);
  m.of = static_cast<std::size_t>(target - spec.args.begin());
  m.type = target->type;
  m.rank = static_cast<unsigned>(t.dims.size());
  m.swizzle = t.swizzle;
  const std::uint64_t element = size_of(m.type);
  std::uint64_t elements = 1;  // the dense tensor's, saturating
  for (unsigned d = 0; d < m.rank; ++d) {
    auto dim = t.dims[d].eval(lookup);
    if (!dim) return dim.error();
    if (*dim < 0)
      return make_error("tensor map '" + a.name + "': dimension " +
                            quote_expression(t.dims[d].text()) + " is negative (" +
                            std::to_string(*dim) + ")",
                        t.dims[d].origin());
    m.dims[d] = static_cast<std::uint64_t>(*dim);
    if (__builtin_mul_overflow(elements, m.dims[d], &elements)) elements = UINT64_MAX;
    auto box = t.box[d].eval(lookup);
    if (!box) return box.error();
    if (*box < 1 || *box > 256)
      return make_error("tensor map '" + a.name + "': box " + quote_expression(t.box[d].text()) +
                            " is " + std::to_string(*box) + ", outside 1..256",
                        t.box[d].origin());
    m.box[d] = static_cast<std::uint32_t>(*box);
  }
  const std::uint64_t inner_bytes = m.box[0] * element;
  if (inner_bytes % 16 != 0)
    return make_error("tensor map '" + a.name + "': the box's inner size is " +
                          std::to_string(inner_bytes) + " bytes, not a multiple of 16",
                      t.box[0].origin());
  if (m.swizzle != 0 && inner_bytes > static_cast<std::uint64_t>(m.swizzle))
    return make_error("tensor map '" + a.name + "': the box's inner size is " +
                          std::to_string(inner_bytes) + " bytes, more than its " +
                          std::to_string(m.swizzle) + "-byte swizzle span",
                      t.box[0].origin());
  // The tensor lies inside its buffer, or the copies would read past it.
  const auto held = static_cast<std::uint64_t>(out.args[m.of].count);
  if (elements > held)
    return make_error(
        "tensor map '" + a.name + "' covers " +
            (elements == UINT64_MAX ? std::string("more than 2^64") : std::to_string(elements)) +
            " elements of '" + t.of + "', which holds " + std::to_string(held),
        t.where);
  std::uint64_t stride = element;
  for (unsigned d = 0; d < m.rank; ++d) {
    if (m.dims[d] == 0 || m.dims[d] > kMaxTensorDim) {
      m.unencodable = "dimension " + std::to_string(d) + " is " + std::to_string(m.dims[d]) +
                      ", outside 1..2^32";
      break;
    }
    if (d + 1 == m.rank) break;
    stride *= m.dims[d];  // no overflow: at most `held` elements in all
    m.strides[d] = stride;
    if (stride % 16 != 0 || stride >= kMaxTensorStride) {
      m.unencodable = "the stride of dimension " + std::to_string(d + 1) + " is " +
                      std::to_string(stride) + " bytes, not a multiple of 16 below 2^40";
      break;
    }
  }
  return m;
}

}  // namespace

std::string tensor_map_unusable(const ResolvedTensorMap& map, std::uint64_t address) {
  if (!map.unencodable.empty()) return map.unencodable;
  if (address % 16 != 0) return "the buffer's address is not 16-byte aligned";
  return {};
}

const Expr* first_using_sm_count(const KernelSpec& spec) {
  std::vector<const Expr*> all;
  for (const auto& a : spec.args) {
    if (a.count) all.push_back(&*a.count);
    if (a.value_expr) all.push_back(&*a.value_expr);
    if (a.tensor_map) {
      for (const auto& e : a.tensor_map->dims) all.push_back(&e);
      for (const auto& e : a.tensor_map->box) all.push_back(&e);
    }
  }
  for (const auto& e : spec.launch.grid) all.push_back(&e);
  for (const auto& e : spec.launch.block) all.push_back(&e);
  for (const auto* e :
       {&spec.launch.shared_bytes, &spec.launch.cluster, &spec.metric_bytes, &spec.metric_flops})
    if (*e) all.push_back(&**e);
  const auto it = std::find_if(
      all.begin(), all.end(), [](const Expr* e) { return e->mentions(std::string(kSmCountName)); });
  return it == all.end() ? nullptr : *it;
}

Result<ResolvedProblem> resolve_problem(const KernelSpec& spec, const ParamSet& params,
                                        const Problem& problem, std::optional<int> sm_count) {
  const NameLookup lookup = make_lookup(params, problem, sm_count);
  ResolvedProblem out;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& a = spec.args[i];
    ResolvedArg r;
    r.index = i;
    if (a.tensor_map) {
      out.args.push_back(std::move(r));  // resolved below, once every buffer's count is known
      continue;
    }
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
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (!spec.args[i].tensor_map) continue;
    auto m = resolve_tensor_map(spec, i, lookup, out);
    if (!m) return m.error();
    out.args[i].tensor_map = std::move(m).value();
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
  if (l.cluster) {
    auto c = eval_dim(*l.cluster, lookup, "cluster", kMaxPortableClusterCtas);
    if (!c) return c.error();
    if (*c != 1 && *c != 2 && *c != 4 && *c != 8)
      return make_error("cluster " + quote_expression(l.cluster->text()) + " is " +
                            std::to_string(*c) + "; a portable cluster has 1, 2, 4 or 8 CTAs",
                        l.cluster->origin());
    if (out.launch.grid[0] % *c != 0)
      return make_error("cluster " + quote_expression(l.cluster->text()) + " is " +
                            std::to_string(*c) + ", which does not divide the grid's x (" +
                            std::to_string(out.launch.grid[0]) + ")",
                        l.cluster->origin());
    out.launch.cluster_x = *c;
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
