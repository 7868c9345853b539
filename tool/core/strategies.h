#pragma once
// Constructors of the individual strategies; make_strategy (strategy.h) dispatches by name.
#include <cstdint>
#include <memory>

#include "core/strategy.h"

namespace kev {

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_evolve(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_anneal(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_local(const SearchSpace& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_auto(const SearchSpace& space, std::uint64_t seed);

}  // namespace kev
