#include "core/space.h"

#include <limits>

namespace kev {

std::string to_string(const SpaceCount& count) {
  return (count.exact ? "" : "at least ") + std::to_string(count.value);
}

// Odometer steps over every point, last dimension fastest.
std::optional<Point> SearchSpace::next_after(const std::optional<Point>& after) const {
  const auto& ds = dims();
  for (const auto& d : ds)
    if (d.values.empty()) return std::nullopt;
  Point p = after ? *after : Point(ds.size(), 0);
  if (p.size() != ds.size()) return std::nullopt;
  const auto advance = [&] {
    for (std::size_t i = ds.size(); i-- > 0;) {
      if (++p[i] < ds[i].values.size()) return true;
      p[i] = 0;
    }
    return false;
  };
  if (after && !advance()) return std::nullopt;
  do {
    if (contains(p)) return p;
  } while (advance());
  return std::nullopt;
}

std::uint64_t SearchSpace::total() const {
  std::uint64_t product = 1;
  for (const auto& dim : dims()) {
    const std::uint64_t n = dim.values.size();
    if (n == 0) return 0;
    if (product > std::numeric_limits<std::uint64_t>::max() / n)
      return std::numeric_limits<std::uint64_t>::max();  // saturates; such spaces are only sampled
    product *= n;
  }
  return product;
}

std::vector<Point> SearchSpace::neighbours(const Point& p, bool adjacent_only) const {
  std::vector<Point> out;
  const auto& ds = dims();
  if (p.size() != ds.size()) return out;
  Point q = p;
  for (std::size_t d = 0; d < ds.size(); ++d) {
    const auto n = static_cast<std::uint32_t>(ds[d].values.size());
    auto try_value = [&](std::uint32_t v) {
      q[d] = v;
      if (contains(q)) out.push_back(q);
    };
    if (adjacent_only) {
      if (p[d] > 0) try_value(p[d] - 1);
      if (p[d] + 1 < n) try_value(p[d] + 1);
    } else {
      for (std::uint32_t v = 0; v < n; ++v)
        if (v != p[d]) try_value(v);
    }
    q[d] = p[d];
  }
  return out;
}

ParamSet SearchSpace::to_params(const Point& p) const {
  ParamSet params;
  const auto& ds = dims();
  for (std::size_t d = 0; d < ds.size() && d < p.size(); ++d)
    if (p[d] < ds[d].values.size()) params.emplace(ds[d].name, ds[d].values[p[d]]);
  return params;
}

std::optional<Point> SearchSpace::from_params(const ParamSet& params) const {
  const auto& ds = dims();
  if (params.size() != ds.size()) return std::nullopt;
  Point p(ds.size());
  for (std::size_t d = 0; d < ds.size(); ++d) {
    const auto it = params.find(ds[d].name);
    if (it == params.end()) return std::nullopt;
    bool found = false;
    // Compare by text too: a recording may hold 2.0 where the space lists 2.
    const std::string text = it->second.to_string();
    for (std::size_t v = 0; v < ds[d].values.size() && !found; ++v) {
      const Value& candidate = ds[d].values[v];
      if (candidate.to_string() == text || same_value(candidate, it->second)) {
        p[d] = static_cast<std::uint32_t>(v);
        found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  return p;
}

std::string SearchSpace::key(const Point& p) const {
  std::string out;
  const auto& ds = dims();
  for (std::size_t d = 0; d < ds.size() && d < p.size(); ++d) {
    if (d > 0) out += ',';
    out += ds[d].name;
    out += '=';
    out += p[d] < ds[d].values.size() ? ds[d].values[p[d]].to_string() : "?";
  }
  return out;
}

}  // namespace kev
