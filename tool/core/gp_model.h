#pragma once
// A Gaussian-process surrogate of a discrete space, for expected-improvement picks: each
// point is its parameters' value ranks scaled to [0, 1] (a parameter of one value drops out),
// and, with power_of_two_features, for each integer parameter whose values mix powers of two
// and other numbers, two more coordinates: whether the value is a power of two, and its
// number of trailing zero bits (scaled to [0, 1]). On GPU kernels those often matter more
// than the value's rank (a block of 64 threads fast, one of 48 or 80 slow, 128 fast again),
// which no smooth function of the rank can follow.
// the kernel a Matern 5/2 of the scaled Euclidean distance, the targets standardised. fit()
// picks one length scale and the noise from a small grid by the marginal likelihood, then
// (ard_passes > 0) each dimension's own scale, one at a time, from a few multiples of it (a
// dimension may drop out); the grid is judged on at most 128 of the points. Points added
// after a fit extend its Cholesky factor by one row each (O(n^2)) under the same scales,
// until the next fit. Cost: a fit O(grid x 128^3 + n^3), a prediction O(n^2).
#include <cstddef>
#include <vector>

#include "core/space.h"

namespace kev {

struct GpPrediction {
  double mean = 0;  // in the targets' units
  double sd = 0;
};

class GpModel {
 public:
  explicit GpModel(const std::vector<Dimension>& dims, int ard_passes = 0,
                   bool power_of_two_features = false);
  // Adds a target (e.g. log(time)); the model takes it in at the next fit or update().
  void add(const Point& p, double y);
  [[nodiscard]] std::size_t size() const { return ys_.size(); }
  // Chooses the length scale and noise for every point added so far, and factorises.
  void fit();
  // Takes in the points added since the last fit or update under the fitted length scale
  // (a fit when there was none).
  void update();
  // Points the factor holds (those added before the last fit or update).
  [[nodiscard]] std::size_t factored() const { return factored_; }
  [[nodiscard]] GpPrediction predict(const Point& p) const;
  // The index into `pool` of the point with the highest expected improvement below `best`
  // (the first of equals); pool.size() when the pool is empty. Cheaper than predicting
  // every point: a point whose mean alone, with the prior's spread, cannot beat the best
  // found so far is not solved for its spread.
  [[nodiscard]] std::size_t best_expected_improvement(const std::vector<Point>& pool,
                                                      double best) const;
  [[nodiscard]] double length_scale() const { return length_; }

 private:
  [[nodiscard]] std::vector<double> coords(const Point& p) const;
  [[nodiscard]] double kernel(const double* a, const double* b) const;
  // Factorises K + noise I of the first n points into chol_; false when not positive
  // definite.
  bool factorise(std::size_t n);
  void solve_alpha();
  // log marginal likelihood of the current factor and targets.
  [[nodiscard]] double log_likelihood() const;

  // The coordinates: each column's dimension, and the column's coordinate for each of its
  // dimension's values.
  std::vector<std::size_t> column_dim_;
  std::vector<std::vector<double>> column_value_;
  std::size_t active_ = 0;  // columns
  std::vector<double> xs_;  // active_ coordinates per point
  std::vector<double> ys_;
  std::vector<double> z_;  // standardised targets of the factored points
  double y_mean_ = 0, y_sd_ = 1;
  double length_ = 0.5, noise_ = 1e-2;
  std::vector<double> weight_;  // 1 / length^2 per active dimension
  int ard_passes_ = 0;
  std::size_t factored_ = 0;
  std::vector<double> chol_;   // lower triangle, row-major, factored_ x factored_
  std::vector<double> alpha_;  // (K + noise I)^-1 z
};

// Expected improvement below `best` (minimisation) of a prediction.
[[nodiscard]] double expected_improvement(const GpPrediction& p, double best);

}  // namespace kev
