#pragma once
// Search strategies (DESIGN.md section 5). A strategy proposes points (ask) and learns their
// outcomes (tell). ask() may be called several times before the matching tell()s, so a
// backend can compile ahead; a strategy never proposes a point twice, nor one it was told
// about (a resumed trace), and returns nullopt only when every valid point has been
// proposed. Deterministic given the seed and the sequence of calls.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evaluation.h"
#include "core/result.h"
#include "core/space.h"

namespace kev {

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::optional<Point> ask() = 0;
  virtual void tell(const Point& p, const Outcome& outcome) = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

// The strategy names make_strategy accepts, in the order help texts list them.
[[nodiscard]] const std::vector<std::string>& strategy_names();

// `space` must outlive the strategy.
Result<std::unique_ptr<Strategy>> make_strategy(std::string_view name, const SearchSpace& space,
                                                std::uint64_t seed);

}  // namespace kev
