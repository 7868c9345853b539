#include "core/scalar_codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace kev {

std::uint16_t float_to_half_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half_mant = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<std::uint16_t>(sign | half_mant);
  }
  std::uint32_t h = sign | (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: ok
  return static_cast<std::uint16_t>(h);
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(h) & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return std::bit_cast<float>(sign);
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint16_t float_to_bfloat16_bits(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>((x + rounding) >> 16);
}

float bfloat16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint8_t float_to_e4m3_bits(float f) {
  if (std::isnan(f)) return 0x7F;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  const float a = std::fabs(f);
  if (a >= 448.0f) return sign | 0x7E;
  int e = 0;
  std::frexp(a, &e);                         // a in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, -6);  // below 2^-6 the subnormals' step, 2^-9
  const float step = std::ldexp(1.0f, exponent - 3);
  const float q = std::nearbyint(a / step);  // ties to even: the default rounding mode
  const float v = q * step;
  if (v < std::ldexp(1.0f, -6)) return sign | static_cast<std::uint8_t>(q);  // subnormal or 0
  std::frexp(v, &e);  // rounding may have carried into the next binade
  const int field = e - 1 + 7;
  const auto mantissa = static_cast<int>(std::ldexp(v, -(e - 1)) * 8.0f) - 8;
  return sign | static_cast<std::uint8_t>((field << 3) | mantissa);
}

float e4m3_bits_to_float(std::uint8_t b) {
  const float sign = (b & 0x80u) ? -1.0f : 1.0f;
  const int field = (b >> 3) & 0xF;
  const int mantissa = b & 0x7;
  if (field == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  if (field == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, field - 7);
}

bool is_floating(ScalarType t) {
  return t == ScalarType::f16 || t == ScalarType::bf16 || t == ScalarType::f32 ||
         t == ScalarType::f64 || t == ScalarType::fp8_e4m3;
}

namespace {
template <class T>
T load(const unsigned char* data, std::size_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return v;
}
template <class T>
void store(unsigned char* data, std::size_t i, T v) {
  std::memcpy(data + i * sizeof(T), &v, sizeof(T));
}
template <class T>
T saturate(double v) {
  if (std::isnan(v)) return T{0};
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(v), lo, hi));
}
}  // namespace

double load_element(ScalarType t, const unsigned char* data, std::size_t i) {
  switch (t) {
    case ScalarType::f16:
      return half_bits_to_float(load<std::uint16_t>(data, i));
    case ScalarType::bf16:
      return bfloat16_bits_to_float(load<std::uint16_t>(data, i));
    case ScalarType::f32:
      return load<float>(data, i);
    case ScalarType::f64:
      return load<double>(data, i);
    case ScalarType::i8:
      return load<std::int8_t>(data, i);
    case ScalarType::i16:
      return load<std::int16_t>(data, i);
    case ScalarType::i32:
      return load<std::int32_t>(data, i);
    case ScalarType::i64:
      return static_cast<double>(load<std::int64_t>(data, i));
    case ScalarType::u8:
      return load<std::uint8_t>(data, i);
    case ScalarType::u16:
      return load<std::uint16_t>(data, i);
    case ScalarType::u32:
      return load<std::uint32_t>(data, i);
    case ScalarType::u64:
      return static_cast<double>(load<std::uint64_t>(data, i));
    case ScalarType::fp8_e4m3:
      return e4m3_bits_to_float(load<std::uint8_t>(data, i));
  }
  return 0.0;
}

void store_element(ScalarType t, unsigned char* data, std::size_t i, double v) {
  switch (t) {
    case ScalarType::f16:
      store(data, i, float_to_half_bits(static_cast<float>(v)));
      return;
    case ScalarType::bf16:
      store(data, i, float_to_bfloat16_bits(static_cast<float>(v)));
      return;
    case ScalarType::f32:
      store(data, i, static_cast<float>(v));
      return;
    case ScalarType::f64:
      store(data, i, v);
      return;
    case ScalarType::i8:
      store(data, i, saturate<std::int8_t>(v));
      return;
    case ScalarType::i16:
      store(data, i, saturate<std::int16_t>(v));
      return;
    case ScalarType::i32:
      store(data, i, saturate<std::int32_t>(v));
      return;
    case ScalarType::i64:
      store(data, i, saturate<std::int64_t>(v));
      return;
    case ScalarType::u8:
      store(data, i, saturate<std::uint8_t>(v));
      return;
    case ScalarType::u16:
      store(data, i, saturate<std::uint16_t>(v));
      return;
    case ScalarType::u32:
      store(data, i, saturate<std::uint32_t>(v));
      return;
    case ScalarType::u64:
      store(data, i, saturate<std::uint64_t>(v));
      return;
    case ScalarType::fp8_e4m3:
      store(data, i, float_to_e4m3_bits(static_cast<float>(v)));
      return;
  }
}

}  // namespace kev
