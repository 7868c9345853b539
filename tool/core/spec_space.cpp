#include "core/spec_space.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace kev {
namespace {

constexpr std::uint32_t kUndefined = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();
// A group with at most this many valid sub-points keeps them, for sampling it once
// rejection turns out too slow (sparse groups).
constexpr std::uint64_t kSparseListLimit = 1u << 16;
// Rejection draws of one group not counted to its end before sampling gives up.
constexpr int kMaxUncountedDraws = 1 << 20;
constexpr auto kAny = [](std::size_t, const Point&) { return true; };

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b, bool& saturated) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    saturated = true;
    return std::numeric_limits<std::uint64_t>::max();
  }
  return a * b;
}

// Union-find over parameter indices.
std::uint32_t root(std::vector<std::uint32_t>& parent, std::uint32_t d) {
  while (parent[d] != d) d = parent[d] = parent[parent[d]];
  return d;
}

}  // namespace

SpecSpace::SpecSpace(const KernelSpec& spec, std::vector<Problem> problems,
                     std::uint64_t count_steps)
    : problems_(std::move(problems)), count_steps_(count_steps) {
  points_ = spec.params.empty() ? 0 : 1;
  bool saturated = false;
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
    points_ = saturating_mul(points_, param.values.size(), saturated);
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
  for (const auto& expr : owned_) {
    Constraint c;
    c.expr = &expr;
    for (const auto& name : expr.names()) {
      const auto param = std::find_if(dims_.begin(), dims_.end(),
                                      [&](const Dimension& d) { return d.name == name; });
      if (param != dims_.end()) {
        const auto d = static_cast<std::uint32_t>(param - dims_.begin());
        c.slot_of_name.push_back(d);
        c.param_dims.push_back(d);
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
    constraints_.push_back(std::move(c));
  }

  // Groups: parameters read by one constraint belong together.
  const auto n = static_cast<std::uint32_t>(dims_.size());
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  for (const auto& c : constraints_)
    for (const auto d : c.param_dims) parent[root(parent, d)] = root(parent, c.param_dims.front());
  std::vector<std::int64_t> group_of_root(n, -1);
  whole_.points = points_;
  for (std::uint32_t d = 0; d < n; ++d) {
    whole_.dims.push_back(d);
    const std::uint32_t r = root(parent, d);
    if (group_of_root[r] < 0) {
      group_of_root[r] = static_cast<std::int64_t>(groups_.size());
      groups_.emplace_back();
    }
    Order& order = groups_[static_cast<std::size_t>(group_of_root[r])].order;
    order.dims.push_back(d);
    order.points = saturating_mul(order.points, dims_[d].values.size(), saturated);
  }
  whole_.levels.resize(n);
  for (auto& g : groups_) g.order.levels.resize(g.order.dims.size());
  for (const auto& c : constraints_) {
    if (c.param_dims.empty()) {
      global_.push_back(&c);
      continue;
    }
    const std::uint32_t last = *std::max_element(c.param_dims.begin(), c.param_dims.end());
    whole_.levels[last].push_back(&c);
    Order& order = groups_[static_cast<std::size_t>(group_of_root[root(parent, last)])].order;
    const auto pos = std::find(order.dims.begin(), order.dims.end(), last) - order.dims.begin();
    order.levels[static_cast<std::size_t>(pos)].push_back(&c);
  }
  // A parameter no constraint reads needs no group: any of its values will do.
  std::erase_if(groups_, [](const Group& g) {
    return std::all_of(g.order.levels.begin(), g.order.levels.end(),
                       [](const auto& level) { return level.empty(); });
  });
  group_of_dim_.assign(n, -1);
  position_in_group_.assign(n, 0);
  for (std::size_t k = 0; k < groups_.size(); ++k) {
    Group& g = groups_[k];
    g.suffix.assign(g.order.dims.size() + 1, 1);
    bool unused = false;
    for (std::size_t i = g.order.dims.size(); i-- > 0;) {
      const std::uint32_t d = g.order.dims[i];
      g.suffix[i] = saturating_mul(g.suffix[i + 1], dims_[d].values.size(), unused);
      group_of_dim_[d] = static_cast<std::int32_t>(k);
      position_in_group_[d] = static_cast<std::uint32_t>(i);
    }
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

bool SpecSpace::all_hold(const std::vector<const Constraint*>& cs, const Slots& slots,
                         const Point& p) const {
  const std::size_t first_dim = dims_.size();
  for (const Constraint* c : cs) {
    if (!c->per_problem) {
      if (!holds(*c, slots[0].data(), p)) return false;
      continue;
    }
    for (std::size_t k = 0; k < problems_.size(); ++k) {
      for (const auto slot : c->slot_of_name)
        if (slot == kUndefined || (slot >= first_dim && !problem_has_[k][slot - first_dim]))
          return false;
      if (!holds(*c, slots[k].data(), p)) return false;
    }
  }
  return true;
}

bool SpecSpace::valid_point(const Point& p, Slots& slots) const {
  for (std::size_t d = 0; d < dims_.size(); ++d) set_param(slots, d, p[d]);
  if (!all_hold(global_, slots, p)) return false;
  for (const auto& level : whole_.levels)
    if (!all_hold(level, slots, p)) return false;
  return true;
}

bool SpecSpace::contains(const Point& p) const {
  if (p.size() != dims_.size() || points_ == 0) return false;
  for (std::size_t d = 0; d < dims_.size(); ++d)
    if (p[d] >= dims_[d].values.size()) return false;
  Slots slots = make_slots();
  return valid_point(p, slots);
}

template <class Extendable, class Visit>
bool SpecSpace::search(const Order& order, std::size_t i, Point& p, Slots& slots,
                       std::uint64_t& steps, const Extendable& extendable, Visit&& visit) const {
  const std::size_t last = order.dims.size() - 1;
  for (;;) {
    const std::uint32_t d = order.dims[i];
    if (p[d] >= dims_[d].values.size()) {
      if (i == 0) return true;
      p[d] = 0;
      --i;
      ++p[order.dims[i]];
      continue;
    }
    if (steps == 0) return false;
    --steps;
    set_param(slots, d, p[d]);
    if (!all_hold(order.levels[i], slots, p) || !extendable(i, p)) {
      ++p[d];
      continue;
    }
    if (i == last) {
      if (!visit(static_cast<const Point&>(p))) return true;
      ++p[d];
      continue;
    }
    ++i;
    p[order.dims[i]] = 0;
  }
}

bool SpecSpace::group_extendable(std::uint32_t d, const Point& p) const {
  const std::int32_t k = group_of_dim_[d];
  if (k < 0) return true;
  if (!counted_.load(std::memory_order_acquire)) return true;  // the constraints alone prune
  const Group& g = groups_[static_cast<std::size_t>(k)];
  if (!g.valid) return true;
  // The group's dims up to d are set: its sub-points starting so lie in [low, low + span).
  const std::uint32_t pos = position_in_group_[d];
  std::uint64_t prefix = 0;
  for (std::uint32_t i = 0; i <= pos; ++i)
    prefix = prefix * dims_[g.order.dims[i]].values.size() + p[g.order.dims[i]];
  const std::uint64_t span = g.suffix[pos + 1];
  const std::uint64_t low = prefix * span;
  const auto it = std::lower_bound(g.valid->begin(), g.valid->end(), low);
  return it != g.valid->end() && *it - low < span;
}

template <class Visit>
bool SpecSpace::search_whole(std::size_t i, Point& p, Slots& slots, std::uint64_t steps,
                             Visit&& visit) const {
  return search(
      whole_, i, p, slots, steps,
      [&](std::size_t at, const Point& q) {
        return group_extendable(static_cast<std::uint32_t>(at), q);
      },
      visit);
}

void SpecSpace::for_each(const std::function<bool(const Point&)>& visit) const {
  (void)count();  // keeps the valid sub-points of small groups, never changed after
  (void)for_each_within(kUnlimited, visit);
}

bool SpecSpace::for_each_within(std::uint64_t max_steps,
                                const std::function<bool(const Point&)>& visit) const {
  if (points_ == 0) return true;
  Slots slots = make_slots();
  Point p(dims_.size(), 0);
  if (!all_hold(global_, slots, p)) return true;
  return search_whole(0, p, slots, max_steps, visit);
}

std::optional<Point> SpecSpace::next_after(const std::optional<Point>& after) const {
  if (points_ == 0) return std::nullopt;
  (void)count();  // as for for_each
  Slots slots = make_slots();
  Point p(dims_.size(), 0);
  if (!all_hold(global_, slots, p)) return std::nullopt;
  std::size_t i = 0;
  if (after) {
    if (after->size() != dims_.size()) return std::nullopt;
    for (std::size_t d = 0; d < dims_.size(); ++d)
      if ((*after)[d] >= dims_[d].values.size()) return std::nullopt;
    p = *after;
    // Resume just past the longest prefix of `after` that holds.
    for (; i < dims_.size(); ++i) {
      set_param(slots, i, p[i]);
      if (!all_hold(whole_.levels[i], slots, p) ||
          !group_extendable(static_cast<std::uint32_t>(i), p))
        break;
    }
    if (i == dims_.size()) --i;
    ++p[i];
    std::fill(p.begin() + static_cast<std::ptrdiff_t>(i) + 1, p.end(), 0u);
  }
  std::optional<Point> found;
  (void)search_whole(i, p, slots, kUnlimited, [&](const Point& q) {
    found = q;
    return false;
  });
  return found;
}

std::uint64_t SpecSpace::group_index(const Order& order, const Point& p) const {
  std::uint64_t index = 0;
  for (const auto d : order.dims) index = index * dims_[d].values.size() + p[d];
  return index;
}

void SpecSpace::set_group_index(const Order& order, std::uint64_t index, Point& p) const {
  for (std::size_t i = order.dims.size(); i-- > 0;) {
    const std::uint32_t d = order.dims[i];
    const std::uint64_t n = dims_[d].values.size();
    p[d] = static_cast<std::uint32_t>(index % n);
    index /= n;
  }
}

// Counts each group within what is left of the step budget, the smallest groups first so
// that one costly group leaves the others exact. Called with mutex_ held.
SpaceCount SpecSpace::count_groups_once() const {
  Slots slots = make_slots();
  Point p(dims_.size(), 0);
  if (points_ == 0 || !all_hold(global_, slots, p)) {
    return SpaceCount{0, true};
  }
  std::vector<Group*> by_size;
  for (auto& g : groups_) by_size.push_back(&g);
  std::stable_sort(by_size.begin(), by_size.end(), [](const Group* a, const Group* b) {
    return a->order.points < b->order.points;
  });
  std::uint64_t steps = count_steps_;
  for (Group* g : by_size) {
    std::uint64_t found = 0;
    std::vector<std::uint64_t> valid;
    bool keep = g->order.points < std::numeric_limits<std::uint64_t>::max();  // indices fit
    std::fill(p.begin(), p.end(), 0u);
    const bool done = search(g->order, 0, p, slots, steps, kAny, [&](const Point& v) {
      ++found;
      if (keep && valid.size() < kSparseListLimit) {
        valid.push_back(group_index(g->order, v));
      } else if (keep) {
        keep = false;
        std::vector<std::uint64_t>().swap(valid);
      }
      return true;
    });
    g->count = SpaceCount{found, done};
    if (done && keep) g->valid = std::move(valid);
    if (done && found == 0) {
      return SpaceCount{0, true};
    }
  }
  bool saturated = false;
  SpaceCount total{1, true};
  std::vector<char> grouped(dims_.size(), 0);
  for (const auto& g : groups_) {
    total.value = saturating_mul(total.value, g.count.value, saturated);
    total.exact = total.exact && g.count.exact;
    for (const auto d : g.order.dims) grouped[d] = 1;
  }
  for (std::size_t d = 0; d < dims_.size(); ++d)
    if (!grouped[d]) total.value = saturating_mul(total.value, dims_[d].values.size(), saturated);
  total.exact = total.exact && !saturated;
  return total;
}

void SpecSpace::count_groups() const {
  if (count_) return;
  count_ = count_groups_once();
  counted_.store(true, std::memory_order_release);
}

SpaceCount SpecSpace::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  count_groups();
  return *count_;
}

bool SpecSpace::empty() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_) return count_->exact && count_->value == 0;
  }
  // A first valid point is usually found at once; a count is needed only without one.
  if (points_ == 0) return true;
  Slots slots = make_slots();
  Point p(dims_.size(), 0);
  if (!all_hold(global_, slots, p)) return true;
  bool found = false;
  std::uint64_t steps = count_steps_;
  const bool done = search(whole_, 0, p, slots, steps, kAny, [&](const Point&) {
    found = true;
    return false;
  });
  if (found) return false;
  if (done) return true;
  const SpaceCount c = count();
  return c.exact && c.value == 0;
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

bool SpecSpace::sample_group(Group& g, Point& p, Slots& slots, Rng& rng) const {
  const Order& order = g.order;
  const auto draw = [&] {
    for (std::size_t i = 0; i < order.dims.size(); ++i) {
      const std::uint32_t d = order.dims[i];
      p[d] = std::uniform_int_distribution<std::uint32_t>(
          0, static_cast<std::uint32_t>(dims_[d].values.size() - 1))(rng);
      set_param(slots, d, p[d]);
    }
    for (const auto& level : order.levels)
      if (!all_hold(level, slots, p)) return false;
    return true;
  };
  for (int i = 0; i < 256; ++i)
    if (draw()) return true;
  if (g.valid) {
    if (g.valid->empty()) return false;
    std::uniform_int_distribution<std::size_t> pick(0, g.valid->size() - 1);
    set_group_index(order, (*g.valid)[pick(rng)], p);
    return true;
  }
  if (g.count.exact) {
    // Counted to its end within the step budget, so walking to one of its valid sub-points,
    // chosen uniformly, stays within it too.
    if (g.count.value == 0) return false;
    std::uint64_t target = std::uniform_int_distribution<std::uint64_t>(0, g.count.value - 1)(rng);
    Point q = p;
    for (const auto d : order.dims) q[d] = 0;
    bool found = false;
    std::uint64_t steps = kUnlimited;
    (void)search(order, 0, q, slots, steps, kAny, [&](const Point& v) {
      if (target-- > 0) return true;
      for (const auto d : order.dims) p[d] = v[d];
      found = true;
      return false;
    });
    return found;
  }
  // Too costly to count: keep drawing, within bounds.
  for (int i = 0; i < kMaxUncountedDraws; ++i)
    if (draw()) return true;
  return false;
}

std::optional<Point> SpecSpace::sample(Rng& rng) const {
  if (points_ == 0) return std::nullopt;
  Slots slots = make_slots();
  const bool saturated = points_ == std::numeric_limits<std::uint64_t>::max();
  std::uniform_int_distribution<std::uint64_t> any(0, points_ - 1);
  const auto draw = [&] {
    if (!saturated) return point_at(any(rng));
    Point p(dims_.size());
    for (std::size_t d = 0; d < dims_.size(); ++d)
      p[d] = std::uniform_int_distribution<std::uint32_t>(
          0, static_cast<std::uint32_t>(dims_[d].values.size() - 1))(rng);
    return p;
  };
  for (int i = 0; i < 256; ++i) {
    Point p = draw();
    if (valid_point(p, slots)) return p;
  }

  // Sparse space: the groups are independent, so a uniform valid point is a uniform valid
  // sub-point of each group with uniform values elsewhere.
  std::lock_guard<std::mutex> lock(mutex_);
  count_groups();
  if (count_->exact && count_->value == 0) return std::nullopt;
  Point p = draw();
  for (std::size_t d = 0; d < dims_.size(); ++d) set_param(slots, d, p[d]);
  for (auto& g : groups_)
    if (!sample_group(g, p, slots, rng)) return std::nullopt;
  return p;
}

}  // namespace kev
