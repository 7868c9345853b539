#pragma once
// Elementwise comparison of a candidate's output with the reference's, on host copies.
// NaN or Inf where the reference has none never passes; an element still holding the poison
// pattern was never written.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/spec.h"

namespace kev {

struct OutputComparison {
  bool ok = true;
  std::size_t mismatches = 0;  // elements out of tolerance (unwritten ones included)
  std::size_t unwritten = 0;   // elements still holding the poison pattern
  std::size_t non_finite = 0;  // NaN/Inf where the reference is finite
  std::size_t first_bad = 0;   // index of the first bad element
  double max_abs_error = 0.0;
  std::string message;  // empty when ok
};

// The tolerance for a type: the spec's for float/double, at least the format's own precision
// for half, bfloat16 and fp8, exact for integers.
[[nodiscard]] Tolerance tolerance_for(ScalarType t, const Tolerance& spec);

// `check_poison`: count elements holding the poison pattern as unwritten (off when the
// output was filled with something else before the run).
[[nodiscard]] OutputComparison compare_outputs(ScalarType t, const unsigned char* reference,
                                               const unsigned char* candidate, std::size_t count,
                                               const Tolerance& tolerance,
                                               bool check_poison = true);

}  // namespace kev
