#include "core/additive_model.h"

#include <cmath>

namespace kev {

AdditiveModel::AdditiveModel(const std::vector<Dimension>& dims, double ridge, int sweeps)
    : ridge_(ridge), sweeps_(sweeps) {
  std::size_t n = 0;
  for (const auto& d : dims) {
    offset_.push_back(n);
    n += d.values.size();
  }
  effect_.assign(n, 0.0);
}

void AdditiveModel::add(const Point& p, double time) {
  points_.push_back(p);
  ys_.push_back(std::log(time));
}

void AdditiveModel::fit() {
  if (ys_.empty()) return;
  double sum = 0;
  for (double y : ys_) sum += y;
  mean_ = sum / static_cast<double>(ys_.size());
  // residual_[i] = y_i - mean - the sum of point i's effects, kept up to date.
  std::vector<double> residual(ys_.size());
  for (std::size_t i = 0; i < ys_.size(); ++i) residual[i] = ys_[i] - predict(points_[i]);
  std::vector<double> num(effect_.size()), count(effect_.size());
  for (int sweep = 0; sweep < sweeps_; ++sweep) {
    for (std::size_t d = 0; d < offset_.size(); ++d) {
      const std::size_t first = offset_[d];
      const std::size_t last = d + 1 < offset_.size() ? offset_[d + 1] : effect_.size();
      for (std::size_t v = first; v < last; ++v) num[v] = count[v] = 0;
      // The partial residual without this dimension's effects, per value.
      for (std::size_t i = 0; i < ys_.size(); ++i) {
        const std::size_t v = first + points_[i][d];
        num[v] += residual[i] + effect_[v];
        count[v] += 1;
      }
      for (std::size_t i = 0; i < ys_.size(); ++i) {
        const std::size_t v = first + points_[i][d];
        residual[i] += effect_[v] - num[v] / (count[v] + ridge_);
      }
      for (std::size_t v = first; v < last; ++v) effect_[v] = num[v] / (count[v] + ridge_);
    }
  }
}

double AdditiveModel::predict(const Point& p) const {
  double y = mean_;
  for (std::size_t d = 0; d < offset_.size() && d < p.size(); ++d) y += effect_[offset_[d] + p[d]];
  return y;
}

}  // namespace kev
