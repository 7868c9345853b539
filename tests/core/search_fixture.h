#pragma once
// A small synthetic recorded space for strategy and tuner tests: 3 parameters, holes where
// a "constraint" fails, and a few failed configurations.
#include <cmath>

#include "core/recording.h"

namespace kev::testing {

inline Recording synthetic_recording(bool all_failed = false) {
  Recording rec;
  rec.kernel = "synthetic";
  rec.dims = {{"A", {1, 2, 4, 8}}, {"B", {32, 64, 128, 256, 512}}, {"C", {0, 1, 2, 3}}};
  for (std::uint32_t a = 0; a < 4; ++a)
    for (std::uint32_t b = 0; b < 5; ++b)
      for (std::uint32_t c = 0; c < 4; ++c) {
        if (a == 3 && b == 4) continue;  // outside the space
        Outcome out;
        if (all_failed || (a == 0 && c == 2)) {
          out.disposition = Disposition::compile_failed;
        } else {
          out.disposition = Disposition::passed;
          out.time_us = 10.0 + std::abs(static_cast<double>(a) - 2.0) * 3.0 +
                        std::abs(static_cast<double>(b) - 3.0) * 2.0 + c;
          out.samples_us = {*out.time_us * 0.99, *out.time_us, *out.time_us * 1.01};
        }
        rec.add({a, b, c}, out);
      }
  return rec;
}

}  // namespace kev::testing
