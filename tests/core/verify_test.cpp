// Verification on host arrays: the semantics the device-side compare kernel mirrors.
#include "core/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/poison.h"
#include "core/scalar_codec.h"

namespace kev {
namespace {

std::vector<unsigned char> floats(const std::vector<float>& v) {
  std::vector<unsigned char> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<unsigned char> poisoned(ScalarType t, std::size_t n) {
  std::vector<unsigned char> b(n * size_of(t));
  const std::uint32_t w = poison_word(t);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(w >> (8 * (i % 4)));
  return b;
}

TEST(Verify, WithinToleranceOfTheReferencePasses) {
  auto ref = floats({1.0f, -2.0f, 1000.0f});
  auto got = floats({1.000001f, -2.0f, 1000.005f});
  const auto c = compare_outputs(ScalarType::f32, ref.data(), got.data(), 3, {1e-5, 1e-6});
  EXPECT_TRUE(c.ok) << c.message;
}

TEST(Verify, OutOfToleranceFailsAndNamesTheFirstElement) {
  auto ref = floats({1.0f, 2.0f, 3.0f});
  auto got = floats({1.0f, 2.1f, 3.1f});
  const auto c = compare_outputs(ScalarType::f32, ref.data(), got.data(), 3, {1e-5, 1e-6});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.first_bad, 1u);
  EXPECT_NE(c.message.find("[1]"), std::string::npos) << c.message;
}

TEST(Verify, NaNOrInfWhereTheReferenceIsFiniteNeverPasses) {
  const float inf = std::numeric_limits<float>::infinity();
  auto ref = floats({1.0f, 2.0f});
  auto got = floats({std::nanf(""), inf});
  const auto c = compare_outputs(ScalarType::f32, ref.data(), got.data(), 2, {1e30, 1e30});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.non_finite, 2u);
  // The same non-finite value as the reference is fine.
  auto ref2 = floats({inf, std::nanf("")});
  auto got2 = floats({inf, std::nanf("")});
  EXPECT_TRUE(compare_outputs(ScalarType::f32, ref2.data(), got2.data(), 2, {}).ok);
}

TEST(Verify, ElementsStillHoldingThePoisonWereNeverWritten) {
  auto ref = floats({1.0f, 2.0f, 3.0f, 4.0f});
  auto got = poisoned(ScalarType::f32, 4);
  std::memcpy(got.data(), ref.data(), 8);  // two of four written
  const auto c = compare_outputs(ScalarType::f32, ref.data(), got.data(), 4, {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.unwritten, 2u);
  EXPECT_NE(c.message.find("never written"), std::string::npos);
}

TEST(Verify, PoisonPatternsAreNaNInEveryFloatFormat) {
  for (ScalarType t : {ScalarType::f16, ScalarType::bf16, ScalarType::f32, ScalarType::f64,
                       ScalarType::fp8_e4m3}) {
    auto b = poisoned(t, 1);
    EXPECT_TRUE(std::isnan(load_element(t, b.data(), 0))) << cuda_name(t);
    EXPECT_TRUE(is_poison(t, b.data(), 0));
  }
  // Guards read as NaN too, so reading past the end poisons a result.
  std::vector<unsigned char> g(8);
  for (std::size_t i = 0; i < 8; ++i)
    g[i] = static_cast<unsigned char>(kGuardWord >> (8 * (i % 4)));
  for (ScalarType t : {ScalarType::f16, ScalarType::bf16, ScalarType::f32, ScalarType::f64})
    EXPECT_TRUE(std::isnan(load_element(t, g.data(), 0))) << cuda_name(t);
}

TEST(Verify, IntegersMustMatchExactlyAndHalfFormatsGetTheirOwnPrecision) {
  std::vector<std::int32_t> ri{1, 2, 3}, gi{1, 2, 4};
  auto c = compare_outputs(ScalarType::i32, reinterpret_cast<unsigned char*>(ri.data()),
                           reinterpret_cast<unsigned char*>(gi.data()), 3, {1.0, 1.0});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_DOUBLE_EQ(tolerance_for(ScalarType::f16, {1e-5, 1e-6}).rtol, 1e-3);
  EXPECT_DOUBLE_EQ(tolerance_for(ScalarType::f32, {1e-5, 1e-6}).rtol, 1e-5);
  EXPECT_DOUBLE_EQ(tolerance_for(ScalarType::i8, {1e-5, 1e-6}).atol, 0.0);
}

TEST(Verify, FirstChangeFindsAGuardWrite) {
  std::vector<unsigned char> g(64);
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = static_cast<unsigned char>(kGuardWord >> (8 * (i % 4)));
  EXPECT_FALSE(first_change(g.data(), g.size(), kGuardWord).has_value());
  g[37] ^= 1;
  EXPECT_EQ(first_change(g.data(), g.size(), kGuardWord).value_or(0), 37u);
}

TEST(ScalarCodec, HalfAndBfloat16RoundTripAndRound) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604645e-08f})
    EXPECT_EQ(half_bits_to_float(float_to_half_bits(f)), f) << f;
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7C00);  // overflow to infinity
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3F80);
  EXPECT_FLOAT_EQ(bfloat16_bits_to_float(float_to_bfloat16_bits(3.140625f)), 3.140625f);
  std::vector<unsigned char> b(2);
  store_element(ScalarType::i8, b.data(), 0, 300.0);  // saturates
  EXPECT_EQ(load_element(ScalarType::i8, b.data(), 0), 127.0);
}

TEST(ScalarCodec, E4m3MatchesTheFormat) {
  EXPECT_EQ(float_to_e4m3_bits(1.0f), 0x38);
  EXPECT_EQ(float_to_e4m3_bits(-2.0f), 0xC0);
  EXPECT_EQ(float_to_e4m3_bits(448.0f), 0x7E);  // the largest finite value
  EXPECT_EQ(float_to_e4m3_bits(1e9f), 0x7E);    // saturates, never NaN
  EXPECT_EQ(float_to_e4m3_bits(-500.0f), 0xFE);
  EXPECT_EQ(float_to_e4m3_bits(0x1p-9f), 0x01);   // the smallest subnormal
  EXPECT_EQ(float_to_e4m3_bits(0x1p-11f), 0x00);  // under half of it: zero
  EXPECT_EQ(float_to_e4m3_bits(-0.0f), 0x80);
  EXPECT_EQ(float_to_e4m3_bits(std::nanf("")), 0x7F);
  // Ties go to the even mantissa: 1 + 1/16 lies between 1 (0x38) and 1.125 (0x39).
  EXPECT_EQ(float_to_e4m3_bits(1.0625f), 0x38);
  EXPECT_EQ(float_to_e4m3_bits(1.1875f), 0x3A);
  EXPECT_EQ(float_to_e4m3_bits(0.9999f), 0x38);  // rounds up into the next binade
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0xFF)));
  // Every other code decodes to a value that encodes back to it.
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7F) == 0x7F) continue;
    const auto bits = static_cast<std::uint8_t>(b);
    EXPECT_EQ(float_to_e4m3_bits(e4m3_bits_to_float(bits)), bits) << b;
  }
  std::vector<unsigned char> x(1);
  store_element(ScalarType::fp8_e4m3, x.data(), 0, 0.3);
  EXPECT_DOUBLE_EQ(load_element(ScalarType::fp8_e4m3, x.data(), 0), 0.3125);
  EXPECT_DOUBLE_EQ(tolerance_for(ScalarType::fp8_e4m3, {1e-5, 1e-6}).rtol, 0.125);
}

}  // namespace
}  // namespace kev
