#include "core/verify.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/poison.h"
#include "core/scalar_codec.h"

namespace kev {

Tolerance tolerance_for(ScalarType t, const Tolerance& spec) {
  switch (t) {
    case ScalarType::f16:
      return {std::max(spec.rtol, 1e-3), std::max(spec.atol, 1e-3)};
    case ScalarType::bf16:
      return {std::max(spec.rtol, 8e-3), std::max(spec.atol, 8e-3)};
    case ScalarType::fp8_e4m3:  // 3 mantissa bits: one step is up to 1/8 of the value
      return {std::max(spec.rtol, 0.125), std::max(spec.atol, 1.0 / 64)};
    case ScalarType::f32:
    case ScalarType::f64:
      return spec;
    default:
      return {0.0, 0.0};
  }
}

OutputComparison compare_outputs(ScalarType t, const unsigned char* reference,
                                 const unsigned char* candidate, std::size_t count,
                                 const Tolerance& tolerance, bool check_poison) {
  OutputComparison c;
  const Tolerance tol = tolerance_for(t, tolerance);
  const bool floating = is_floating(t);
  double first_ref = 0.0;
  double first_got = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    bool bad = false;
    if (check_poison && is_poison(t, candidate, i) && !is_poison(t, reference, i)) {
      ++c.unwritten;
      bad = true;
    } else {
      const double r = load_element(t, reference, i);
      const double g = load_element(t, candidate, i);
      if (floating) {
        if (!std::isfinite(g)) {
          // Same non-finite class as the reference (NaN and NaN, +Inf and +Inf) is fine.
          const bool same = (std::isnan(g) && std::isnan(r)) || (std::isinf(g) && g == r);
          if (!same) {
            ++c.non_finite;
            bad = true;
          }
        } else if (!std::isfinite(r)) {
          bad = true;
        } else {
          const double err = std::fabs(g - r);
          c.max_abs_error = std::max(c.max_abs_error, err);
          bad = !(err <= tol.atol + tol.rtol * std::fabs(r));
        }
      } else {
        bad = r != g;
        if (bad) c.max_abs_error = std::max(c.max_abs_error, std::fabs(g - r));
      }
    }
    if (bad) {
      if (c.mismatches == 0) {
        c.first_bad = i;
        first_ref = load_element(t, reference, i);
        first_got = load_element(t, candidate, i);
      }
      ++c.mismatches;
    }
  }
  if (c.mismatches > 0) {
    c.ok = false;
    std::ostringstream os;
    os.precision(9);
    os << c.mismatches << " of " << count << " elements wrong";
    if (c.unwritten > 0) os << " (" << c.unwritten << " never written)";
    if (c.non_finite > 0) os << " (" << c.non_finite << " NaN/Inf where the reference is finite)";
    os << "; first at [" << c.first_bad << "]: got " << first_got << ", expected " << first_ref
       << " (rtol " << tol.rtol << ", atol " << tol.atol << ")";
    c.message = os.str();
  }
  return c;
}

}  // namespace kev
