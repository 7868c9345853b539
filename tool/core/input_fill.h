#pragma once
// Host-side input generation per spec init kind, from a seed: the same seed gives the same
// bytes on every machine.
#include <cstdint>
#include <vector>

#include "core/spec.h"

namespace kev {

// `count` elements of the argument's type, filled per its init kind.
[[nodiscard]] std::vector<unsigned char> make_input(const ArgSpec& arg, std::int64_t count,
                                                    std::uint64_t seed);
// `count` finite, non-zero random values of type t (a decoy the output is filled with in
// one verification round, so a kernel cannot recognise "not yet computed" by a NaN).
[[nodiscard]] std::vector<unsigned char> make_decoy(ScalarType t, std::int64_t count,
                                                    std::uint64_t seed);

}  // namespace kev
