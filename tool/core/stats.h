#pragma once
// Robust statistics for timing samples: medians, bootstrap confidence intervals, a rank
// test, and the SAME / SLOWER / FASTER / UNSURE verdict of `check` and `compare`.
// Everything random is seeded, so a verdict is reproducible from its samples.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kev::stats {

// Median of the samples (mean of the two middle values for an even count); NaN when empty.
[[nodiscard]] double median(std::span<const double> samples);
// Quantile q in [0, 1], linear interpolation between order statistics (R type 7, numpy's
// default); NaN when empty.
[[nodiscard]] double quantile(std::span<const double> samples, double q);

struct Interval {
  double low = 0.0;
  double high = 0.0;
  [[nodiscard]] bool contains(double x) const { return low <= x && x <= high; }
};

struct BootstrapOptions {
  double confidence = 0.95;
  int iterations = 2000;
  std::uint64_t seed = 0x6b65766f;  // "kevo"
};

// Percentile bootstrap interval of the median.
[[nodiscard]] Interval bootstrap_median_ci(std::span<const double> samples,
                                           const BootstrapOptions& options = {});
// Percentile bootstrap interval of median(head) / median(base), resampling each side
// independently.
[[nodiscard]] Interval bootstrap_ratio_ci(std::span<const double> base,
                                          std::span<const double> head,
                                          const BootstrapOptions& options = {});

// Interval of head / base from each median's own interval, the two measured independently
// (their samples are gone, as in a lockfile or a tune's rows): on the log scale each side's
// half-widths add in quadrature, below and above the ratio separately (the intervals need not
// be symmetric). NaN when a median or bound is not positive or a bound is on the wrong side.
[[nodiscard]] Interval ratio_interval_of_medians(double base, const Interval& base_ci, double head,
                                                 const Interval& head_ci);

struct RankTest {
  double u = 0.0;        // Mann-Whitney U of `a` (pairs where a > b, ties counting half)
  double z = 0.0;        // normal approximation's z (0 when exact)
  double p_value = 1.0;  // two-sided
  bool exact = false;    // exact distribution (small samples without ties)
};
// Mann-Whitney U test: exact for small samples without ties, otherwise the normal
// approximation with tie and continuity correction.
[[nodiscard]] RankTest mann_whitney_u(std::span<const double> a, std::span<const double> b);

enum class Verdict { same, slower, faster, unsure };
[[nodiscard]] const char* to_string(Verdict v);  // "SAME", "SLOWER", "FASTER", "UNSURE"

struct CompareOptions {
  double min_rel_change = 0.05;  // a change smaller than 5% is never material
  double min_abs_us = 2.0;       // nor one smaller than 2 microseconds
  double alpha = 0.05;           // rank test significance level
  BootstrapOptions bootstrap;    // confidence = 1 - alpha is the usual choice
  std::size_t min_samples = 5;   // fewer samples on either side: UNSURE
};

struct Comparison {
  Verdict verdict = Verdict::unsure;
  double base_median_us = 0.0;
  double head_median_us = 0.0;
  double ratio = 1.0;      // head / base medians; > 1 is slower
  Interval ratio_ci;       // bootstrap interval of the ratio
  double p_value = 1.0;    // Mann-Whitney U, two-sided
  double threshold = 0.0;  // relative change that counts as material for this kernel
  std::string reason;      // one line of evidence, for reports
};

// Judges head against base. SLOWER (or FASTER) needs all of: the rank test significant at
// alpha, the ratio's interval excluding 1, and the median change at least the material
// threshold max(min_rel_change, min_abs_us / base median). SAME needs the whole ratio
// interval inside the threshold band (a material change is ruled out). Anything else is
// UNSURE: too noisy to say either way.
[[nodiscard]] Comparison compare(std::span<const double> base_us, std::span<const double> head_us,
                                 const CompareOptions& options = {});

}  // namespace kev::stats
