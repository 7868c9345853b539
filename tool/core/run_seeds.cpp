#include "core/run_seeds.h"

namespace kev {

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t input_seed(std::uint64_t seed, std::size_t shape, std::size_t round,
                         std::size_t arg) {
  return mix_seed(mix_seed(seed, shape * 1000 + round), arg);
}

std::uint64_t decoy_seed(std::uint64_t seed, std::size_t shape, std::size_t arg) {
  return mix_seed(seed ^ 0xdec0ull, shape * 131 + arg);
}

std::uint64_t timed_launch_seed(std::uint64_t seed, std::size_t shape) {
  return mix_seed(seed ^ 0x7173ull, shape);
}

std::uint64_t batch_seed(std::uint64_t seed, std::size_t shape) {
  return mix_seed(seed ^ 0xba7cull, shape);
}

}  // namespace kev
