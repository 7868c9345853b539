#pragma once
// Reading and writing one element of any spec scalar type in a host byte buffer, including
// the float formats the host has no native type for (IEEE half, bfloat16, fp8 E4M3).
#include <cstddef>
#include <cstdint>

#include "core/spec.h"

namespace kev {

[[nodiscard]] std::uint16_t float_to_half_bits(float f);  // round to nearest even
[[nodiscard]] float half_bits_to_float(std::uint16_t h);
[[nodiscard]] std::uint16_t float_to_bfloat16_bits(float f);  // round to nearest even
[[nodiscard]] float bfloat16_bits_to_float(std::uint16_t b);
// E4M3 rounds to nearest even and saturates to +-448 (as __nv_cvt_float_to_fp8 with
// __NV_SATFINITE); NaN becomes 0x7F.
[[nodiscard]] std::uint8_t float_to_e4m3_bits(float f);
[[nodiscard]] float e4m3_bits_to_float(std::uint8_t b);

[[nodiscard]] bool is_floating(ScalarType t);
// Element i of a buffer of type t, widened to double.
[[nodiscard]] double load_element(ScalarType t, const unsigned char* data, std::size_t i);
// Stores v (rounded or truncated to the type; integers saturate) as element i.
void store_element(ScalarType t, unsigned char* data, std::size_t i, double v);

}  // namespace kev
