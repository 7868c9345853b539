#include "core/spec_space.h"

#include <algorithm>
#include <limits>
#include <string>

namespace kev {
namespace {

constexpr std::uint32_t kUndefined = std::numeric_limits<std::uint32_t>::max();
// Spaces with at most this many valid points keep their valid indices once sampling by
// rejection turns out too slow (sparse spaces).
constexpr std::uint64_t kSparseListLimit = 1u << 16;

}  // namespace

SpecSpace::SpecSpace(const KernelSpec& spec, std::vector<Problem> problems)
    : problems_(std::move(problems)) {
  points_ = spec.params.empty() ? 0 : 1;
  for (const auto& param : spec.params) {
    dims_.push_back({param.name, param.values});
    std::vector<std::int64_t> ints;
    std::vector<char> is_int;
    for (const auto& v : param.values) {
      ints.push_back(v.as_int().value_or(0));
      is_int.push_back(v.is_int() ? 1 : 0);
      if (!v.is_int()) all_int_ = false;
    }
    int_values_.push_back(std::move(ints));
    is_int_.push_back(std::move(is_int));
    const std::uint64_t n = param.values.size();
    if (n == 0) {
      points_ = 0;
    } else if (points_ > std::numeric_limits<std::uint64_t>::max() / n) {
      points_ = std::numeric_limits<std::uint64_t>::max();
    } else {
      points_ *= n;
    }
  }

  // Slots: parameters, then every dimension name any problem has.
  std::vector<std::string> dim_names;
  for (const auto& problem : problems_)
    for (const auto& [name, value] : problem.dims)
      if (std::find(dim_names.begin(), dim_names.end(), name) == dim_names.end())
        dim_names.push_back(name);
  slot_count_ = dims_.size() + dim_names.size();
  for (const auto& problem : problems_) {
    std::vector<std::int64_t> values(dim_names.size(), 0);
    std::vector<char> has(dim_names.size(), 0);
    for (std::size_t i = 0; i < dim_names.size(); ++i) {
      const auto it = problem.dims.find(dim_names[i]);
      if (it != problem.dims.end()) {
        values[i] = it->second;
        has[i] = 1;
      }
    }
    problem_slots_.push_back(std::move(values));
    problem_has_.push_back(std::move(has));
  }

  owned_ = spec.constraints;
  levels_.resize(dims_.size() + 1);
  for (const auto& expr : owned_) {
    Constraint c;
    c.expr = &expr;
    std::size_t level = 0;
    for (const auto& name : expr.names()) {
      const auto param = std::find_if(dims_.begin(), dims_.end(),
                                      [&](const Dimension& d) { return d.name == name; });
      if (param != dims_.end()) {
        const auto d = static_cast<std::uint32_t>(param - dims_.begin());
        c.slot_of_name.push_back(d);
        c.param_dims.push_back(d);
        level = std::max<std::size_t>(level, d + 1);
        continue;
      }
      c.per_problem = true;
      const auto dim = std::find(dim_names.begin(), dim_names.end(), name);
      c.slot_of_name.push_back(
          dim == dim_names.end()
              ? kUndefined
              : static_cast<std::uint32_t>(dims_.size() +
                                           static_cast<std::size_t>(dim - dim_names.begin())));
    }
    if (c.per_problem) {
      depends_on_problems_ = true;
      if (problems_.empty()) continue;  // not checked without problems
    }
    levels_[level].push_back(std::move(c));
  }
}

SpecSpace::Slots SpecSpace::make_slots() const {
  Slots slots(std::max<std::size_t>(problems_.size(), 1),
              std::vector<std::int64_t>(slot_count_ + 1, 0));
  for (std::size_t k = 0; k < problems_.size(); ++k)
    std::copy(problem_slots_[k].begin(), problem_slots_[k].end(),
              slots[k].begin() + static_cast<std::ptrdiff_t>(dims_.size()));
  return slots;
}

void SpecSpace::set_param(Slots& slots, std::size_t d, std::uint32_t index) const {
  const std::int64_t v = int_values_[d][index];
  for (auto& s : slots) s[d] = v;
}

bool SpecSpace::holds(const Constraint& c, const std::int64_t* slots, const Point& p) const {
  if (!all_int_) {
    for (const auto d : c.param_dims)
      if (!is_int_[d][p[d]]) return false;
  }
  std::int64_t result = 0;
  return c.expr->eval_slots(slots, c.slot_of_name.data(), result) && result != 0;
}

bool SpecSpace::level_holds(std::size_t level, const Slots& slots, const Point& p) const {
  const std::size_t first_dim = dims_.size();
  for (const auto& c : levels_[level]) {
    if (!c.per_problem) {
      if (!holds(c, slots[0].data(), p)) return false;
      continue;
    }
    for (std::size_t k = 0; k < problems_.size(); ++k) {
      for (const auto slot : c.slot_of_name)
        if (slot == kUndefined || (slot >= first_dim && !problem_has_[k][slot - first_dim]))
          return false;
      if (!holds(c, slots[k].data(), p)) return false;
    }
  }
  return true;
}

bool SpecSpace::valid_point(const Point& p, Slots& slots) const {
  for (std::size_t d = 0; d < dims_.size(); ++d) set_param(slots, d, p[d]);
  for (std::size_t level = 0; level < levels_.size(); ++level)
    if (!level_holds(level, slots, p)) return false;
  return true;
}

bool SpecSpace::contains(const Point& p) const {
  if (p.size() != dims_.size() || points_ == 0) return false;
  for (std::size_t d = 0; d < dims_.size(); ++d)
    if (p[d] >= dims_[d].values.size()) return false;
  Slots slots = make_slots();
  return valid_point(p, slots);
}

// Depth-first over parameters in mixed-radix order (last fastest), pruning a subtree as soon
// as a constraint on the parameters set so far fails. `visit` returns false to stop.
template <class Visit>
void SpecSpace::enumerate(Visit&& visit) const {
  if (points_ == 0) return;
  Slots slots = make_slots();
  Point p(dims_.size(), 0);
  if (!level_holds(0, slots, p)) return;
  const std::size_t last = dims_.size() - 1;
  std::size_t d = 0;
  for (;;) {
    if (p[d] >= dims_[d].values.size()) {
      if (d == 0) return;
      p[d] = 0;
      --d;
      ++p[d];
      continue;
    }
    set_param(slots, d, p[d]);
    if (!level_holds(d + 1, slots, p)) {
      ++p[d];
      continue;
    }
    if (d == last) {
      if (!visit(p)) return;
      ++p[d];
      continue;
    }
    ++d;
    p[d] = 0;
  }
}

void SpecSpace::for_each(const std::function<bool(const Point&)>& visit) const { enumerate(visit); }

std::uint64_t SpecSpace::size() const {
  const std::int64_t cached = cached_size_.load(std::memory_order_relaxed);
  if (cached >= 0) return static_cast<std::uint64_t>(cached);
  std::uint64_t count = 0;
  enumerate([&](const Point&) {
    ++count;
    return true;
  });
  cached_size_.store(static_cast<std::int64_t>(count), std::memory_order_relaxed);
  return count;
}

bool SpecSpace::empty() const {
  const std::int64_t cached = cached_size_.load(std::memory_order_relaxed);
  if (cached >= 0) return cached == 0;
  bool found = false;
  enumerate([&](const Point&) {
    found = true;
    return false;
  });
  return !found;
}

Point SpecSpace::point_at(std::uint64_t index) const {
  Point p(dims_.size(), 0);
  for (std::size_t d = dims_.size(); d > 0; --d) {
    const std::uint64_t n = dims_[d - 1].values.size();
    p[d - 1] = static_cast<std::uint32_t>(index % n);
    index /= n;
  }
  return p;
}

std::optional<Point> SpecSpace::sample(Rng& rng) const {
  if (points_ == 0) return std::nullopt;
  std::uniform_int_distribution<std::uint64_t> any(0, points_ - 1);
  Slots slots = make_slots();
  const auto try_random = [&]() -> std::optional<Point> {
    Point p = point_at(any(rng));
    if (valid_point(p, slots)) return p;
    return std::nullopt;
  };
  for (int i = 0; i < 256; ++i)
    if (auto p = try_random()) return p;

  // Sparse space: count once, then either pick from the stored valid indices (few valid
  // points) or keep rejecting for about 64 times the expected number of draws.
  const std::uint64_t valid = size();
  if (valid == 0) return std::nullopt;
  if (valid <= kSparseListLimit) {
    std::lock_guard<std::mutex> lock(sparse_mutex_);
    if (!sparse_indices_) {
      std::vector<std::uint64_t> indices;
      indices.reserve(valid);
      std::uint64_t index = 0;
      // for_each visits in mixed-radix order, so the running index of a valid point is
      // recomputed from the point itself.
      for_each([&](const Point& p) {
        index = 0;
        for (std::size_t d = 0; d < dims_.size(); ++d)
          index = index * dims_[d].values.size() + p[d];
        indices.push_back(index);
        return true;
      });
      sparse_indices_ = std::move(indices);
    }
    std::uniform_int_distribution<std::size_t> pick(0, sparse_indices_->size() - 1);
    return point_at((*sparse_indices_)[pick(rng)]);
  }
  const std::uint64_t expected_draws = points_ / valid + 1;
  const std::uint64_t limit = expected_draws > std::numeric_limits<std::uint64_t>::max() / 64
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : expected_draws * 64;
  for (std::uint64_t i = 0; i < limit; ++i)
    if (auto p = try_random()) return p;
  // Practically unreachable; walk to a uniformly chosen valid point.
  std::uniform_int_distribution<std::uint64_t> pick(0, valid - 1);
  std::uint64_t target = pick(rng);
  std::optional<Point> chosen;
  for_each([&](const Point& p) {
    if (target-- == 0) {
      chosen = p;
      return false;
    }
    return true;
  });
  return chosen;
}

}  // namespace kev
