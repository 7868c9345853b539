#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

namespace kev::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Median of `buf`, reordering it in place.
double median_in_place(std::vector<double>& buf) {
  const std::size_t n = buf.size();
  if (n == 0) return kNaN;
  const auto mid = buf.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(buf.begin(), mid, buf.end());
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(buf.begin(), mid);
  return 0.5 * (lower + upper);
}

// Uniform index in [0, n) with rejection, so the sequence is the same on every standard
// library (std::uniform_int_distribution's algorithm is implementation-defined).
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) {
  const std::uint64_t range = n;
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return static_cast<std::size_t>(x % range);
}

// Median of a resample (with replacement) of `sorted`, which must be sorted. Counts how
// often each order statistic is drawn and walks the counts, which is O(n) per resample.
double resampled_median(std::span<const double> sorted, std::mt19937_64& rng,
                        std::vector<std::uint32_t>& counts) {
  const std::size_t n = sorted.size();
  counts.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[draw_index(rng, n)];
  // 0-based ranks of the middle element(s) of the resample
  const std::size_t upper_rank = n / 2;
  const std::size_t lower_rank = n % 2 == 1 ? upper_rank : upper_rank - 1;
  double lower = kNaN;
  std::size_t seen = 0;
  for (std::size_t k = 0; k < n; ++k) {
    seen += counts[k];
    if (std::isnan(lower) && seen > lower_rank) lower = sorted[k];
    if (seen > upper_rank) return 0.5 * (lower + sorted[k]);
  }
  return lower;
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  return v;
}

Interval percentile_interval(std::vector<double>& estimates, double confidence) {
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1.0 - confidence) / 2.0;
  return {quantile(estimates, tail), quantile(estimates, 1.0 - tail)};
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// Number of arrangements of m values of `a` and n of `b` (no ties) giving each U, by the
// recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u). Returns P(U <= u).
double exact_u_cdf(std::size_t m, std::size_t n, double u) {
  const std::size_t max_u = m * n;
  // counts[j][v]: arrangements of i a-values and j b-values with U = v, for the current i.
  std::vector<std::vector<double>> counts(n + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) counts[j][0] = 1.0;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0.0));
    next[0][0] = 1.0;
    for (std::size_t j = 1; j <= n; ++j) {
      for (std::size_t v = 0; v <= i * j; ++v) {
        // the largest value is an a-value (it beats all j b-values) or a b-value
        const double from_a = v >= j ? counts[j][v - j] : 0.0;
        next[j][v] = from_a + next[j - 1][v];
      }
    }
    counts = std::move(next);
  }
  double total = 0.0;
  double below = 0.0;
  for (std::size_t v = 0; v <= max_u; ++v) {
    total += counts[n][v];
    if (static_cast<double>(v) <= u + 1e-9) below += counts[n][v];
  }
  return below / total;
}

// What the verdict was judged against; the medians, the interval and the p-value are the
// report's own numbers (core/ratio_text.h), so they are not repeated here.
std::string format_reason(const Comparison& c, const CompareOptions& o) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "material change >= %.1f%%, alpha %.2g", c.threshold * 100.0,
                o.alpha);
  return buf;
}

}  // namespace

double median(std::span<const double> samples) {
  std::vector<double> buf(samples.begin(), samples.end());
  return median_in_place(buf);
}

double quantile(std::span<const double> samples, double q) {
  if (samples.empty()) return kNaN;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

Interval bootstrap_median_ci(std::span<const double> samples, const BootstrapOptions& options) {
  if (samples.empty()) return {kNaN, kNaN};
  std::mt19937_64 rng(options.seed);
  const std::vector<double> sorted = sorted_copy(samples);
  std::vector<std::uint32_t> counts;
  std::vector<double> estimates(static_cast<std::size_t>(std::max(options.iterations, 1)));
  for (double& e : estimates) e = resampled_median(sorted, rng, counts);
  return percentile_interval(estimates, options.confidence);
}

Interval bootstrap_ratio_ci(std::span<const double> base, std::span<const double> head,
                            const BootstrapOptions& options) {
  if (base.empty() || head.empty()) return {kNaN, kNaN};
  std::mt19937_64 rng(options.seed);
  const std::vector<double> base_sorted = sorted_copy(base);
  const std::vector<double> head_sorted = sorted_copy(head);
  std::vector<std::uint32_t> counts;
  std::vector<double> estimates(static_cast<std::size_t>(std::max(options.iterations, 1)));
  for (double& e : estimates) {
    const double b = resampled_median(base_sorted, rng, counts);
    const double h = resampled_median(head_sorted, rng, counts);
    e = h / b;
  }
  return percentile_interval(estimates, options.confidence);
}

Interval ratio_interval_of_medians(double base, const Interval& base_ci, double head,
                                   const Interval& head_ci) {
  const bool usable = base > 0.0 && head > 0.0 && base_ci.low > 0.0 && head_ci.low > 0.0 &&
                      base_ci.contains(base) && head_ci.contains(head);
  if (!usable) return {kNaN, kNaN};
  // head / base is low when head is low and base is high, and high the other way round.
  const double down = std::hypot(std::log(head / head_ci.low), std::log(base_ci.high / base));
  const double up = std::hypot(std::log(head_ci.high / head), std::log(base / base_ci.low));
  const double ratio = head / base;
  return {ratio * std::exp(-down), ratio * std::exp(up)};
}

RankTest mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  RankTest result;
  const std::size_t m = a.size();
  const std::size_t n = b.size();
  if (m == 0 || n == 0) return result;

  // Rank the pooled samples, averaging ranks over ties.
  struct Tagged {
    double x;
    bool from_a;
  };
  std::vector<Tagged> pooled;
  pooled.reserve(m + n);
  for (double x : a) pooled.push_back({x, true});
  for (double x : b) pooled.push_back({x, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const Tagged& l, const Tagged& r) { return l.x < r.x; });
  double rank_sum_a = 0.0;
  double tie_term = 0.0;  // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].x == pooled[i].x) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].from_a) rank_sum_a += avg_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  const double dm = static_cast<double>(m);
  const double dn = static_cast<double>(n);
  result.u = rank_sum_a - dm * (dm + 1.0) / 2.0;

  constexpr std::size_t kExactLimit = 400;  // m * n: the exact table stays small
  if (tie_term == 0.0 && m * n <= kExactLimit) {
    const double lower = exact_u_cdf(m, n, result.u);              // P(U <= u)
    const double upper = 1.0 - exact_u_cdf(m, n, result.u - 1.0);  // P(U >= u)
    result.p_value = std::min(1.0, 2.0 * std::min(lower, upper));
    result.exact = true;
    return result;
  }

  const double mean_u = dm * dn / 2.0;
  const double total = dm + dn;
  const double var_u = dm * dn / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (var_u <= 0.0) return result;  // every value tied: no evidence of a difference
  const double diff = result.u - mean_u;
  const double corrected = std::max(std::abs(diff) - 0.5, 0.0);  // continuity correction
  result.z = std::copysign(corrected / std::sqrt(var_u), diff);
  result.p_value = std::min(1.0, 2.0 * (1.0 - normal_cdf(std::abs(result.z))));
  return result;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::faster:
      return "FASTER";
    case Verdict::unsure:
      return "UNSURE";
  }
  return "UNSURE";
}

Comparison compare(std::span<const double> base_us, std::span<const double> head_us,
                   const CompareOptions& options) {
  Comparison c;
  if (base_us.empty() || head_us.empty()) {
    c.reason = "no samples on one side";
    return c;
  }
  c.base_median_us = median(base_us);
  c.head_median_us = median(head_us);
  c.ratio = c.head_median_us / c.base_median_us;
  c.ratio_ci = bootstrap_ratio_ci(base_us, head_us, options.bootstrap);
  c.p_value = mann_whitney_u(head_us, base_us).p_value;
  c.threshold = options.min_rel_change;
  if (c.base_median_us > 0.0)
    c.threshold = std::max(c.threshold, options.min_abs_us / c.base_median_us);
  c.reason = format_reason(c, options);

  if (base_us.size() < options.min_samples || head_us.size() < options.min_samples ||
      !std::isfinite(c.ratio) || c.base_median_us <= 0.0) {
    c.verdict = Verdict::unsure;
    c.reason = "too few samples to judge; " + c.reason;
    return c;
  }
  const bool significant = c.p_value < options.alpha;
  if (significant && c.ratio_ci.low > 1.0 && c.ratio - 1.0 >= c.threshold) {
    c.verdict = Verdict::slower;
  } else if (significant && c.ratio_ci.high < 1.0 && 1.0 - c.ratio >= c.threshold) {
    c.verdict = Verdict::faster;
  } else if (c.ratio_ci.low > 1.0 - c.threshold && c.ratio_ci.high < 1.0 + c.threshold) {
    c.verdict = Verdict::same;
  } else {
    c.verdict = Verdict::unsure;
  }
  return c;
}

}  // namespace kev::stats
