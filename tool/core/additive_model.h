#pragma once
// A surrogate of a discrete space: log(time) as the mean plus one effect per parameter value,
// each a trend along the parameter's value order (so values not tried yet are predicted from
// those that were) and a ridge-shrunk deviation from it (an additive model fitted by
// backfitting: a few sweeps over the
// parameters, each O(points x parameters), so its cost stays bounded however many values the
// parameters have). Blind to interactions, so it ranks candidates rather than predicting
// times.
#include <cstddef>
#include <vector>

#include "core/space.h"

namespace kev {

class AdditiveModel {
 public:
  explicit AdditiveModel(const std::vector<Dimension>& dims, double ridge = 1.0, int sweeps = 8);
  void add(const Point& p, double time);
  [[nodiscard]] std::size_t size() const { return ys_.size(); }
  // Refits the effects to every point added so far.
  void fit();
  // The fitted log(time) of p (0 before the first fit).
  [[nodiscard]] double predict(const Point& p) const;

 private:
  std::vector<std::size_t> offset_;  // first effect of each dimension
  double ridge_;
  int sweeps_;
  std::vector<Point> points_;
  std::vector<double> ys_;
  std::vector<double> effect_;
  double mean_ = 0;
};

}  // namespace kev
