#pragma once
// Bit patterns the runner writes into device buffers. Each is one 32-bit word repeated, so
// the device fills them with a single memset.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/spec.h"

namespace kev {

// Outputs are filled with this before every candidate run: a NaN for every float type (so
// arithmetic on an unwritten element cannot look right), a sentinel for integers.
[[nodiscard]] constexpr std::uint32_t poison_word(ScalarType t) {
  switch (t) {
    case ScalarType::f16:
      return 0x7EAD7EADu;
    case ScalarType::bf16:
      return 0x7FAD7FADu;
    case ScalarType::f32:
    case ScalarType::f64:
      return 0x7FFBADBDu;
    case ScalarType::fp8_e4m3:
      return 0x7F7F7F7Fu;  // E4M3's only NaN of either sign bit: 0x7F
    default:
      return 0xA5A5A5A5u;
  }
}

// Guard regions before and after every buffer: a NaN in every float format (reading past the
// end poisons the result) and -1-ish for integers. Any change means a write out of bounds.
inline constexpr std::uint32_t kGuardWord = 0xFFF5FFEEu;
inline constexpr std::size_t kGuardBytes = 4096;

// True when element i of a buffer of type t holds exactly the poison pattern.
[[nodiscard]] inline bool is_poison(ScalarType t, const unsigned char* data, std::size_t i) {
  const std::size_t size = size_of(t);
  const std::uint32_t word = poison_word(t);
  unsigned char pattern[8];
  for (std::size_t k = 0; k < 8; k += 4) std::memcpy(pattern + k, &word, 4);
  return std::memcmp(data + i * size, pattern, size) == 0;
}

// The first byte offset in `data` that differs from the repeated 32-bit word; nullopt if none.
[[nodiscard]] inline std::optional<std::size_t> first_change(const unsigned char* data,
                                                             std::size_t bytes,
                                                             std::uint32_t word) {
  for (std::size_t i = 0; i < bytes; ++i) {
    const auto expected = static_cast<unsigned char>((word >> (8 * (i % 4))) & 0xFFu);
    if (data[i] != expected) return i;
  }
  return std::nullopt;
}

}  // namespace kev
