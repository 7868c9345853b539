#include "core/input_fill.h"

#include <cmath>
#include <random>

#include "core/scalar_codec.h"

namespace kev {

namespace {
// Deterministic across standard libraries (std::*_distribution is not): SplitMix64.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};
}  // namespace

std::vector<unsigned char> make_input(const ArgSpec& arg, std::int64_t count, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(count < 0 ? 0 : count);
  std::vector<unsigned char> data(n * size_of(arg.type));
  SplitMix rng{seed ^ 0x6b65766f00000000ull};
  const bool floating = is_floating(arg.type);
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0.0;
    switch (arg.init) {
      case InitKind::normal:
        v = floating ? rng.normal() : std::nearbyint(rng.normal() * 16.0);
        break;
      case InitKind::uniform: {
        const double lo = arg.init_low;
        const double hi = (arg.init_value == 0.0 && lo == 0.0) ? 1.0 : arg.init_value;
        v = lo + (hi - lo) * rng.uniform01();
        if (!floating) v = std::floor(v);
        break;
      }
      case InitKind::constant:
        v = arg.init_value;
        break;
      case InitKind::iota:
        v = static_cast<double>(i);
        break;
      case InitKind::randint: {
        const double lo = arg.init_low;
        const double hi = (arg.init_value == 0.0 && lo == 0.0) ? 100.0 : arg.init_value;
        v = lo + std::floor((hi - lo) * rng.uniform01());
        break;
      }
      case InitKind::zeros:
        v = 0.0;
        break;
    }
    store_element(arg.type, data.data(), i, v);
  }
  return data;
}

std::vector<unsigned char> make_decoy(ScalarType t, std::int64_t count, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(count < 0 ? 0 : count);
  std::vector<unsigned char> data(n * size_of(t));
  SplitMix rng{seed ^ 0xdec0ddecafull};
  for (std::size_t i = 0; i < n; ++i) {
    double v = 1.0 + 1000.0 * rng.uniform01();
    if (rng.next() & 1u) v = -v;
    store_element(t, data.data(), i, v);
  }
  return data;
}

}  // namespace kev
