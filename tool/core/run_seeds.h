#pragma once
// The seeds the GPU runner derives from TimingOptions::seed: one per generated input, decoy
// fill and random verification choice, so a run is reproducible and no two buffers or
// shapes share a stream of random numbers.
#include <cstddef>
#include <cstdint>

namespace kev {

// splitmix64 of the pair.
[[nodiscard]] std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

// Argument `arg`'s inputs in round (input set) `round` of shape `shape`.
[[nodiscard]] std::uint64_t input_seed(std::uint64_t seed, std::size_t shape, std::size_t round,
                                       std::size_t arg);
// Output argument `arg`'s decoy fill for shape `shape`.
[[nodiscard]] std::uint64_t decoy_seed(std::uint64_t seed, std::size_t shape, std::size_t arg);
// The TimedLaunchPlan's random choices for shape `shape`.
[[nodiscard]] std::uint64_t timed_launch_seed(std::uint64_t seed, std::size_t shape);
// randomly_verified_batch's choice for shape `shape`.
[[nodiscard]] std::uint64_t batch_seed(std::uint64_t seed, std::size_t shape);

}  // namespace kev
