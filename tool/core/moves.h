#pragma once
// Moves built from the best points evaluated so far, shared by the strategies that use them.
#include <cstddef>
#include <optional>

#include "core/search_state.h"

namespace kev {

// A child of two of the best `population` passed points (tournament selection, uniform
// crossover, per-gene mutation, often to an adjacent value); valid and unseen, or nullopt
// after 50 tries.
std::optional<Point> genetic_child(SearchState& state, std::size_t population);

// One of the best `elite_count` passed points (the best most often) with `perturb_min` to
// `perturb_max` of its parameters changed at random; valid and unseen, or nullopt after 100
// tries.
std::optional<Point> perturbed_elite(SearchState& state, int elite_count, int perturb_min,
                                     int perturb_max);

}  // namespace kev
