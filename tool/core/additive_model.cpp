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
  // residual[i] = y_i - mean - the sum of point i's effects, kept up to date.
  std::vector<double> residual(ys_.size());
  for (std::size_t i = 0; i < ys_.size(); ++i) residual[i] = ys_[i] - predict(points_[i]);
  std::vector<double> num(effect_.size()), count(effect_.size());
  for (int sweep = 0; sweep < sweeps_; ++sweep) {
    for (std::size_t d = 0; d < offset_.size(); ++d) {
      const std::size_t first = offset_[d];
      const std::size_t last = d + 1 < offset_.size() ? offset_[d + 1] : effect_.size();
      const double span = last - first > 1 ? static_cast<double>(last - first - 1) : 1.0;
      // The partial residual without this dimension's effects, per point.
      std::vector<double> partial(ys_.size());
      for (std::size_t i = 0; i < ys_.size(); ++i)
        partial[i] = residual[i] + effect_[first + points_[i][d]];
      // A trend along the value order (least squares on the value's rank, centred on the
      // points' mean rank), so values not tried yet are predicted from those that were.
      double mean_x = 0;
      for (std::size_t i = 0; i < ys_.size(); ++i) mean_x += static_cast<double>(points_[i][d]);
      mean_x /= static_cast<double>(ys_.size()) * span;
      double sxy = 0, sxx = 0;
      for (std::size_t i = 0; i < ys_.size(); ++i) {
        const double x = static_cast<double>(points_[i][d]) / span - mean_x;
        sxy += x * partial[i];
        sxx += x * x;
      }
      const double slope = sxx > 1e-12 ? sxy / sxx : 0.0;
      // On top of the trend, one ridge-shrunk effect per value.
      for (std::size_t v = first; v < last; ++v) num[v] = count[v] = 0;
      for (std::size_t i = 0; i < ys_.size(); ++i) {
        const std::size_t v = first + points_[i][d];
        const double x = static_cast<double>(points_[i][d]) / span - mean_x;
        num[v] += partial[i] - slope * x;
        count[v] += 1;
      }
      for (std::size_t v = first; v < last; ++v) {
        const double x = static_cast<double>(v - first) / span - mean_x;
        effect_[v] = slope * x + num[v] / (count[v] + ridge_);
      }
      for (std::size_t i = 0; i < ys_.size(); ++i)
        residual[i] = partial[i] - effect_[first + points_[i][d]];
    }
  }
}

double AdditiveModel::predict(const Point& p) const {
  double y = mean_;
  for (std::size_t d = 0; d < offset_.size() && d < p.size(); ++d) y += effect_[offset_[d] + p[d]];
  return y;
}

}  // namespace kev
