#pragma once
// The search space of a marked kernel: its parameters under its constraints.
// A point is valid when every constraint holds for every given problem. Constraints that
// mention only parameters are evaluated once per point; the others once per problem.
// A constraint that cannot be evaluated (division by zero, overflow, a non-integer value,
// an undefined name) does not hold. Nothing is materialised: points are decoded from a
// mixed-radix index (last parameter varies fastest), which is also the enumeration order.
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
  // With no problems, constraints that mention problem dimensions are not checked.
  SpecSpace(const KernelSpec& spec, std::vector<Problem> problems);
  SpecSpace(const SpecSpace&) = delete;
  SpecSpace& operator=(const SpecSpace&) = delete;

  [[nodiscard]] const std::vector<Dimension>& dims() const override { return dims_; }
  [[nodiscard]] bool contains(const Point& p) const override;
  [[nodiscard]] std::uint64_t size() const override;
  [[nodiscard]] std::optional<Point> sample(Rng& rng) const override;
  void for_each(const std::function<bool(const Point&)>& visit) const override;

  // Product of the parameters' cardinalities (saturating).
  [[nodiscard]] std::uint64_t points() const { return points_; }
  // True when no point is valid; stops at the first valid point.
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
  // Slot arrays hold a point's parameter values followed by one problem's dimensions; there
  // is one per problem (at least one). A constraint is checked as soon as the last parameter
  // it reads is set, so enumeration prunes whole subtrees.
  using Slots = std::vector<std::vector<std::int64_t>>;
  [[nodiscard]] Slots make_slots() const;
  void set_param(Slots& slots, std::size_t d, std::uint32_t index) const;
  [[nodiscard]] bool level_holds(std::size_t level, const Slots& slots, const Point& p) const;
  [[nodiscard]] bool holds(const Constraint& c, const std::int64_t* slots, const Point& p) const;
  [[nodiscard]] bool valid_point(const Point& p, Slots& slots) const;
  template <class Visit>
  void enumerate(Visit&& visit) const;

  std::vector<Dimension> dims_;
  std::vector<std::vector<std::int64_t>> int_values_;  // per dimension, 0 for non-integers
  std::vector<std::vector<char>> is_int_;
  bool all_int_ = true;
  std::vector<Problem> problems_;
  std::vector<std::vector<std::int64_t>> problem_slots_;  // per problem, per dimension name
  std::vector<std::vector<char>> problem_has_;            // per problem, per dimension name
  // levels_[0]: constraints reading no parameter; levels_[d + 1]: those whose last
  // parameter is d.
  std::vector<std::vector<Constraint>> levels_;
  bool depends_on_problems_ = false;
  std::vector<Expr> owned_;  // copies of the spec's constraints (the spec may go away)
  std::uint64_t points_ = 0;
  std::size_t slot_count_ = 0;

  mutable std::atomic<std::int64_t> cached_size_{-1};
  mutable std::mutex sparse_mutex_;
  mutable std::optional<std::vector<std::uint64_t>> sparse_indices_;
};

}  // namespace kev
