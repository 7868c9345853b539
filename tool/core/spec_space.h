#pragma once
// The search space of a marked kernel: its parameters under its constraints.
// A point is valid when every constraint holds for every given problem. Constraints that
// mention only parameters are evaluated once per point; the others once per problem.
// A constraint that cannot be evaluated (division by zero, overflow, a non-integer value,
// an undefined name) does not hold. Nothing is materialised: points are decoded from a
// mixed-radix index (last parameter varies fastest), which is also the enumeration order.
//
// Parameters that no constraint reads together are independent, so the valid points are the
// product of each group's valid points (a group: parameters linked through constraints; a
// parameter no constraint reads is a group of its own). Counting and sampling work group by
// group: 2 * 40^10 points under a constraint on two parameters are counted by visiting 1600.
// A group whose count needs more than `count_steps` search steps gives a lower bound.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "core/space.h"
#include "core/spec.h"

namespace kev {

class SpecSpace : public SearchSpace {
 public:
  static constexpr std::uint64_t kDefaultCountSteps = std::uint64_t{1} << 21;

  // With no problems, constraints that mention problem dimensions are not checked.
  SpecSpace(const KernelSpec& spec, std::vector<Problem> problems,
            std::uint64_t count_steps = kDefaultCountSteps);
  SpecSpace(const SpecSpace&) = delete;
  SpecSpace& operator=(const SpecSpace&) = delete;

  [[nodiscard]] const std::vector<Dimension>& dims() const override { return dims_; }
  [[nodiscard]] bool contains(const Point& p) const override;
  [[nodiscard]] std::uint64_t size() const override { return count().value; }
  [[nodiscard]] SpaceCount count() const override;
  [[nodiscard]] std::optional<Point> sample(Rng& rng) const override;
  void for_each(const std::function<bool(const Point&)>& visit) const override;
  // for_each within `max_steps` search steps; false when they ran out before the end. Unlike
  // for_each it does not count the space first (which makes the search skip more).
  [[nodiscard]] bool for_each_within(std::uint64_t max_steps,
                                     const std::function<bool(const Point&)>& visit) const;
  [[nodiscard]] std::optional<Point> next_after(const std::optional<Point>& after) const override;

  // Product of the parameters' cardinalities (saturating).
  [[nodiscard]] std::uint64_t points() const { return points_; }
  // True when no point is valid. A space too costly to count is taken to be non-empty.
  [[nodiscard]] bool empty() const;
  // True when some constraint mentions a name that is not a parameter.
  [[nodiscard]] bool depends_on_problems() const { return depends_on_problems_; }
  [[nodiscard]] Point point_at(std::uint64_t index) const;
  [[nodiscard]] const std::vector<Problem>& problems() const { return problems_; }

 private:
  struct Constraint {
    const Expr* expr = nullptr;
    std::vector<std::uint32_t> slot_of_name;
    std::vector<std::uint32_t> param_dims;  // parameters it reads (for the non-integer check)
    bool per_problem = false;
  };
  // Parameters searched in `dims` order (first slowest); levels[i] holds the constraints
  // whose last parameter in that order is dims[i], checked as soon as it is set, so a search
  // prunes whole subtrees.
  struct Order {
    std::vector<std::uint32_t> dims;
    std::vector<std::vector<const Constraint*>> levels;
    std::uint64_t points = 1;  // product of the cardinalities (saturating)
  };
  // A group of linked parameters, its count once known, and its valid sub-points (as
  // mixed-radix indices over its dims) when few enough to keep.
  struct Group {
    Order order;
    SpaceCount count;
    std::optional<std::vector<std::uint64_t>> valid;  // sorted
    // suffix[k]: the number of sub-points per value of order.dims[k - 1] (the product of the
    // cardinalities of order.dims[k..]); suffix.front() is order.points.
    std::vector<std::uint64_t> suffix;
  };
  // Slot arrays hold a point's parameter values followed by one problem's dimensions; there
  // is one per problem (at least one).
  using Slots = std::vector<std::vector<std::int64_t>>;
  [[nodiscard]] Slots make_slots() const;
  void set_param(Slots& slots, std::size_t d, std::uint32_t index) const;
  [[nodiscard]] bool all_hold(const std::vector<const Constraint*>& cs, const Slots& slots,
                              const Point& p) const;
  [[nodiscard]] bool holds(const Constraint& c, const std::int64_t* slots, const Point& p) const;
  [[nodiscard]] bool valid_point(const Point& p, Slots& slots) const;
  // Depth-first search over `order` from position `i` (p[order.dims[i]] is the next value to
  // try; every earlier position is set in `p` and `slots` and holds). A position holds when
  // its constraints and `extendable(i, p)` do. `visit(p)` at each valid assignment returns
  // false to stop. False when `steps` ran out first.
  template <class Extendable, class Visit>
  bool search(const Order& order, std::size_t i, Point& p, Slots& slots, std::uint64_t& steps,
              const Extendable& extendable, Visit&& visit) const;
  // The same over every parameter in order, also pruning a value of a parameter whose group's
  // valid sub-points are kept and none starts with the values set so far.
  template <class Visit>
  bool search_whole(std::size_t i, Point& p, Slots& slots, std::uint64_t steps,
                    Visit&& visit) const;
  [[nodiscard]] bool group_extendable(std::uint32_t d, const Point& p) const;
  void count_groups() const;  // fills count_ once; called with mutex_ held
  [[nodiscard]] SpaceCount count_groups_once() const;
  [[nodiscard]] bool sample_group(Group& g, Point& p, Slots& slots, Rng& rng) const;
  [[nodiscard]] std::uint64_t group_index(const Order& order, const Point& p) const;
  void set_group_index(const Order& order, std::uint64_t index, Point& p) const;

  std::vector<Dimension> dims_;
  std::vector<std::vector<std::int64_t>> int_values_;  // per dimension, 0 for non-integers
  std::vector<std::vector<char>> is_int_;
  bool all_int_ = true;
  std::vector<Problem> problems_;
  std::vector<std::vector<std::int64_t>> problem_slots_;  // per problem, per dimension name
  std::vector<std::vector<char>> problem_has_;            // per problem, per dimension name
  std::vector<Constraint> constraints_;                   // those that are checked
  std::vector<const Constraint*> global_;                 // those reading no parameter
  Order whole_;                                           // every parameter, in order
  std::vector<std::int32_t> group_of_dim_;                // -1: no constraint reads it
  std::vector<std::uint32_t> position_in_group_;
  bool depends_on_problems_ = false;
  std::vector<Expr> owned_;  // copies of the spec's constraints (the spec may go away)
  std::uint64_t points_ = 0;
  std::size_t slot_count_ = 0;
  std::uint64_t count_steps_ = kDefaultCountSteps;

  mutable std::mutex mutex_;  // guards what follows
  mutable std::vector<Group> groups_;
  mutable std::optional<SpaceCount> count_;
  mutable std::atomic<bool> counted_{false};  // count_ and the groups' lists are final
};

}  // namespace kev
