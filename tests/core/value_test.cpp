// Equality and text of parameter values, one rule for the lockfile, the header generator,
// replay and the search space.
#include "core/value.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/params_text.h"

namespace kev {
namespace {

TEST(Value, NumbersCompareAsNumbers) {
  EXPECT_TRUE(same_value(Value(2), Value(2.0)));
  EXPECT_TRUE(same_value(Value(0.0), Value(-0.0)));
  EXPECT_FALSE(same_value(Value(2), Value(2.5)));
  EXPECT_FALSE(same_value(Value(std::string("2")), Value(2)));
  EXPECT_TRUE(same_value(Value(std::string("float4")), Value(std::string("float4"))));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(same_value(Value(nan), Value(nan)));
}

TEST(Value, IntegersCompareExactlyBeyondDoublePrecision) {
  // Replay's copy compared every pair as doubles: 2^53 + 1 matched 2^53.
  const std::int64_t big = std::int64_t{1} << 53;
  EXPECT_FALSE(same_value(Value(big), Value(big + 1)));
  EXPECT_TRUE(same_value(Value(big + 1), Value(big + 1)));
}

TEST(Value, TextIsShortestAndKeepsDoublesDoubles) {
  EXPECT_EQ(value_text(Value(256)), "256");
  EXPECT_EQ(value_text(Value(0.5)), "0.5");
  EXPECT_EQ(value_text(Value(0.1)), "0.1");  // to_string: 0.10000000000000001
  EXPECT_EQ(value_text(Value(1.0)), "1.0");
  EXPECT_EQ(value_text(Value(1e300)), "1e+300");
  EXPECT_EQ(value_text(Value(std::string("float4"))), "float4");
}

TEST(ParamsText, OneTextWithTheCallersSeparator) {
  const ParamSet p{{"SCALE", Value(1.0)}, {"TILE", Value(128)}, {"X", Value(0.1)}};
  EXPECT_EQ(params_text(p), "SCALE=1.0, TILE=128, X=0.1");
  EXPECT_EQ(params_text(p, " "), "SCALE=1.0 TILE=128 X=0.1");  // show's table
  EXPECT_EQ(params_text(p, ","), "SCALE=1.0,TILE=128,X=0.1");  // merge messages
  EXPECT_EQ(params_text({}), "source defaults");
  EXPECT_EQ(params_text({}, " ", "(source defaults)"), "(source defaults)");
  EXPECT_EQ(params_text({}, ",", ""), "");
}

}  // namespace
}  // namespace kev
