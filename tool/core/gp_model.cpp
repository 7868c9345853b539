#include "core/gp_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace kev {

namespace {
constexpr double kLengths[] = {0.15, 0.25, 0.4, 0.65, 1.0, 1.6};
constexpr double kNoises[] = {1e-3, 1e-2, 1e-1};
constexpr std::size_t kLikelihoodPoints = 128;  // the grid is judged on at most this many
constexpr double kPi = 3.14159265358979323846;

std::size_t row(std::size_t i) { return i * (i + 1) / 2; }

// a . b over n terms, in four sums so the compiler can vectorise it.
double dot(const double* a, const double* b, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}
}  // namespace

namespace {
bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The dimension's values as positive integers, when they all are and mix powers of two with
// other numbers.
std::optional<std::vector<std::int64_t>> mixed_power_of_two(const Dimension& d) {
  std::vector<std::int64_t> out;
  std::size_t powers = 0;
  for (const auto& v : d.values) {
    const auto i = v.as_int();
    if (!i || *i <= 0) return std::nullopt;
    out.push_back(*i);
    if (is_power_of_two(*i)) ++powers;
  }
  if (powers == 0 || powers == out.size()) return std::nullopt;
  return out;
}
}  // namespace

GpModel::GpModel(const std::vector<Dimension>& dims, int ard_passes, bool power_of_two_features)
    : ard_passes_(ard_passes) {
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::size_t n = dims[d].values.size();
    if (n < 2) continue;
    std::vector<double> rank(n);
    for (std::size_t v = 0; v < n; ++v)
      rank[v] = static_cast<double>(v) / static_cast<double>(n - 1);
    column_dim_.push_back(d);
    column_value_.push_back(std::move(rank));
    if (!power_of_two_features) continue;
    const auto ints = mixed_power_of_two(dims[d]);
    if (!ints) continue;
    std::vector<double> power(n), zeros(n);
    double most_zeros = 0;
    for (std::size_t v = 0; v < n; ++v) {
      power[v] = is_power_of_two((*ints)[v]) ? 1.0 : 0.0;
      zeros[v] = static_cast<double>(std::countr_zero(static_cast<std::uint64_t>((*ints)[v])));
      most_zeros = std::max(most_zeros, zeros[v]);
    }
    for (auto& z : zeros) z = most_zeros > 0 ? z / most_zeros : 0.0;
    column_dim_.push_back(d);
    column_value_.push_back(std::move(power));
    column_dim_.push_back(d);
    column_value_.push_back(std::move(zeros));
  }
  active_ = column_dim_.size();
  weight_.assign(active_, 1.0 / (length_ * length_));
}

std::vector<double> GpModel::coords(const Point& p) const {
  std::vector<double> x;
  x.reserve(active_);
  for (std::size_t c = 0; c < active_; ++c) {
    const std::size_t d = column_dim_[c];
    const auto& values = column_value_[c];
    x.push_back(d < p.size() && p[d] < values.size() ? values[p[d]] : 0.0);
  }
  return x;
}

void GpModel::add(const Point& p, double y) {
  const auto x = coords(p);
  xs_.insert(xs_.end(), x.begin(), x.end());
  ys_.push_back(y);
}

double GpModel::kernel(const double* a, const double* b) const {
  double r2 = 0;
  for (std::size_t d = 0; d < active_; ++d) r2 += weight_[d] * (a[d] - b[d]) * (a[d] - b[d]);
  const double s = std::sqrt(5.0 * r2);
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

bool GpModel::factorise(std::size_t n) {
  chol_.assign(row(n), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double* xi = &xs_[i * active_];
    double* li = &chol_[row(i)];
    for (std::size_t j = 0; j <= i; ++j) {
      const double* lj = &chol_[row(j)];
      const double s = kernel(xi, &xs_[j * active_]) + (i == j ? noise_ : 0.0) - dot(li, lj, j);
      if (i == j) {
        if (s <= 1e-12) return false;
        li[i] = std::sqrt(s);
      } else {
        li[j] = s / lj[j];
      }
    }
  }
  factored_ = n;
  return true;
}

void GpModel::solve_alpha() {
  const std::size_t n = factored_;
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += ys_[i];
  mean /= static_cast<double>(std::max<std::size_t>(1, n));
  double var = 0;
  for (std::size_t i = 0; i < n; ++i) var += (ys_[i] - mean) * (ys_[i] - mean);
  var /= static_cast<double>(std::max<std::size_t>(1, n));
  y_mean_ = mean;
  y_sd_ = var > 1e-24 ? std::sqrt(var) : 1.0;
  z_.resize(n);
  for (std::size_t i = 0; i < n; ++i) z_[i] = (ys_[i] - y_mean_) / y_sd_;
  // alpha = L^-T L^-1 z
  alpha_ = z_;
  for (std::size_t i = 0; i < n; ++i) {
    const double* li = &chol_[row(i)];
    alpha_[i] = (alpha_[i] - dot(li, alpha_.data(), i)) / li[i];
  }
  for (std::size_t i = n; i-- > 0;) {
    double s = alpha_[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= chol_[row(k) + i] * alpha_[k];
    alpha_[i] = s / chol_[row(i) + i];
  }
}

double GpModel::log_likelihood() const {
  double fit = 0, det = 0;
  for (std::size_t i = 0; i < factored_; ++i) {
    fit += z_[i] * alpha_[i];
    det += std::log(chol_[row(i) + i]);
  }
  return -0.5 * fit - det - 0.5 * static_cast<double>(factored_) * std::log(2 * kPi);
}

void GpModel::fit() {
  const std::size_t n = ys_.size();
  if (n == 0) return;
  // The grid is judged on an evenly strided subset, so a fit's cost stays bounded.
  const std::size_t m = std::min(n, kLikelihoodPoints);
  GpModel sub(*this);
  if (m < n) {
    sub.xs_.clear();
    sub.ys_.clear();
    for (std::size_t k = 0; k < m; ++k) {
      const std::size_t i = k * n / m;
      sub.xs_.insert(sub.xs_.end(), xs_.begin() + static_cast<std::ptrdiff_t>(i * active_),
                     xs_.begin() + static_cast<std::ptrdiff_t>((i + 1) * active_));
      sub.ys_.push_back(ys_[i]);
    }
  }
  double best = -std::numeric_limits<double>::infinity();
  double best_length = length_, best_noise = noise_;
  auto judge = [&]() {
    if (!sub.factorise(m)) return -std::numeric_limits<double>::infinity();
    sub.solve_alpha();
    return sub.log_likelihood();
  };
  for (double length : kLengths)
    for (double noise : kNoises) {
      sub.length_ = length;
      sub.noise_ = noise;
      sub.weight_.assign(active_, 1.0 / (length * length));
      const double ll = judge();
      if (ll > best) {
        best = ll;
        best_length = length;
        best_noise = noise;
      }
    }
  length_ = best_length;
  noise_ = best_noise;
  sub.length_ = length_;
  sub.noise_ = noise_;
  sub.weight_.assign(active_, 1.0 / (length_ * length_));
  // Then each dimension's own scale, one at a time (a dimension may drop out).
  for (int pass = 0; pass < ard_passes_; ++pass)
    for (std::size_t d = 0; d < active_; ++d) {
      const double w = sub.weight_[d];
      double best_w = w;
      for (double factor : {0.0, 0.25, 0.5, 2.0, 4.0}) {
        if (w == 0.0 && factor == 0.0) continue;
        sub.weight_[d] = w == 0.0 ? factor / (length_ * length_) : w * factor;
        if (sub.weight_[d] == 0.0 && w == 0.0) continue;
        const double ll = judge();
        if (ll > best + 1e-9) {
          best = ll;
          best_w = sub.weight_[d];
        }
      }
      sub.weight_[d] = best_w;
    }
  weight_ = sub.weight_;
  while (!factorise(n)) noise_ *= 10;
  solve_alpha();
}

void GpModel::update() {
  const std::size_t n = ys_.size();
  if (factored_ == 0) return fit();
  if (factored_ == n) return;
  chol_.resize(row(n), 0.0);
  for (std::size_t i = factored_; i < n; ++i) {
    const double* xi = &xs_[i * active_];
    double* li = &chol_[row(i)];
    double diag = 1.0 + noise_;
    for (std::size_t j = 0; j < i; ++j) {
      const double* lj = &chol_[row(j)];
      li[j] = (kernel(xi, &xs_[j * active_]) - dot(li, lj, j)) / lj[j];
      diag -= li[j] * li[j];
    }
    if (diag <= 1e-12) {  // a duplicate within the noise: refactorise with more noise
      noise_ *= 10;
      while (!factorise(n)) noise_ *= 10;
      solve_alpha();
      return;
    }
    li[i] = std::sqrt(diag);
  }
  factored_ = n;
  solve_alpha();
}

GpPrediction GpModel::predict(const Point& p) const {
  if (factored_ == 0) return {0.0, 1.0};
  const auto x = coords(p);
  const std::size_t n = factored_;
  std::vector<double> v(n);
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = kernel(x.data(), &xs_[i * active_]);
    mean += v[i] * alpha_[i];
  }
  double explained = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* li = &chol_[row(i)];
    v[i] = (v[i] - dot(li, v.data(), i)) / li[i];
    explained += v[i] * v[i];
  }
  const double var = std::max(1e-12, 1.0 - explained);
  return {y_mean_ + y_sd_ * mean, y_sd_ * std::sqrt(var)};
}

std::size_t GpModel::best_expected_improvement(const std::vector<Point>& pool, double best) const {
  const std::size_t n = factored_;
  if (pool.empty()) return 0;
  if (n == 0) return 0;
  std::vector<double> ks(pool.size() * n), means(pool.size()), bound(pool.size());
  for (std::size_t c = 0; c < pool.size(); ++c) {
    const auto x = coords(pool[c]);
    double* k = &ks[c * n];
    double nearest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      k[i] = kernel(x.data(), &xs_[i * active_]);
      nearest = std::max(nearest, k[i]);
    }
    means[c] = y_mean_ + y_sd_ * dot(k, alpha_.data(), n);
    // The spread is at most what the nearest point alone would leave.
    const double spread =
        y_sd_ * std::sqrt(std::max(1e-12, 1.0 - nearest * nearest / (1.0 + noise_)));
    bound[c] = expected_improvement({means[c], spread}, best);
  }
  std::vector<std::size_t> order(pool.size());
  for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return bound[a] > bound[b]; });
  std::size_t chosen = order[0];
  double chosen_ei = -1;
  for (const std::size_t c : order) {
    if (bound[c] < chosen_ei) break;
    double* v = &ks[c * n];
    double explained = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double* li = &chol_[row(i)];
      v[i] = (v[i] - dot(li, v, i)) / li[i];
      explained += v[i] * v[i];
    }
    const double sd = y_sd_ * std::sqrt(std::max(1e-12, 1.0 - explained));
    const double ei = expected_improvement({means[c], sd}, best);
    if (ei > chosen_ei || (ei == chosen_ei && c < chosen)) {
      chosen_ei = ei;
      chosen = c;
    }
  }
  return chosen;
}

double expected_improvement(const GpPrediction& p, double best) {
  const double gain = best - p.mean;
  if (p.sd <= 0) return std::max(0.0, gain);
  const double z = gain / p.sd;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * kPi);
  return gain * cdf + p.sd * pdf;
}

}  // namespace kev
