#pragma once
// A space whose valid points are exactly the points of a recording.
#include <unordered_set>

#include "core/recording.h"
#include "core/space.h"

namespace kev {

class RecordedSpace : public SearchSpace {
 public:
  explicit RecordedSpace(const Recording& recording);

  [[nodiscard]] const std::vector<Dimension>& dims() const override { return dims_; }
  [[nodiscard]] bool contains(const Point& p) const override;
  [[nodiscard]] std::uint64_t size() const override { return points_.size(); }
  [[nodiscard]] std::optional<Point> sample(Rng& rng) const override;
  void for_each(const std::function<bool(const Point&)>& visit) const override;

 private:
  std::vector<Dimension> dims_;
  std::vector<Point> points_;  // sorted, so for_each has a fixed order
  std::unordered_set<Point, PointHash> members_;
};

}  // namespace kev
