#pragma once
// A search space: named dimensions, each a list of values, and a validity rule.
// Points are index vectors (one index per dimension into its value list), so strategies
// never care what the values are. Spaces are never materialised: 10^7-point spaces are
// counted and sampled lazily.
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/evaluation.h"
#include "core/value.h"

namespace kev {

using Point = std::vector<std::uint32_t>;
using Rng = std::mt19937_64;

struct Dimension {
  std::string name;
  std::vector<Value> values;
};

// A number of valid points: exact, or a lower bound where counting them all would take too
// long (and where the number does not fit in 64 bits).
struct SpaceCount {
  std::uint64_t value = 0;
  bool exact = true;
};
// "1234", or "at least 1234".
[[nodiscard]] std::string to_string(const SpaceCount& count);

class SearchSpace {
 public:
  virtual ~SearchSpace() = default;
  [[nodiscard]] virtual const std::vector<Dimension>& dims() const = 0;
  // True when the point satisfies every constraint (for a recorded space: was recorded).
  [[nodiscard]] virtual bool contains(const Point& p) const = 0;
  // Number of valid points (implementations cache it); a lower bound where count() is not
  // exact.
  [[nodiscard]] virtual std::uint64_t size() const = 0;
  [[nodiscard]] virtual SpaceCount count() const { return {size(), true}; }
  // A uniformly random valid point; nullopt when the space is empty.
  [[nodiscard]] virtual std::optional<Point> sample(Rng& rng) const = 0;
  // Visits valid points in a fixed order until `visit` returns false.
  virtual void for_each(const std::function<bool(const Point&)>& visit) const = 0;
  // The first valid point after `after` in for_each's order (the very first without it);
  // nullopt past the last. `after` need not be valid.
  [[nodiscard]] virtual std::optional<Point> next_after(const std::optional<Point>& after) const;

  // Product of the dimensions' cardinalities (valid or not).
  [[nodiscard]] std::uint64_t total() const;
  // Valid points differing from p in exactly one dimension. `adjacent_only` restricts the
  // changed dimension to the next lower or higher value (ordered parameters).
  [[nodiscard]] std::vector<Point> neighbours(const Point& p, bool adjacent_only = false) const;
  [[nodiscard]] ParamSet to_params(const Point& p) const;
  // nullopt when a name or value is not in the space.
  [[nodiscard]] std::optional<Point> from_params(const ParamSet& params) const;
  // Stable text key: "A=1,B=256" in dimension order.
  [[nodiscard]] std::string key(const Point& p) const;
};

}  // namespace kev
