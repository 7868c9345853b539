#include "core/wall_time.h"

#include <gtest/gtest.h>

#include <limits>

namespace kev {
namespace {

TEST(WallTime, ASubSecondRunIsNotZero) {
  // An evolve run on a GPU with cached compiles took 0.62 s and was printed as "0 s".
  EXPECT_EQ(format_wall_time(0.6226), "0.6 s");
  EXPECT_EQ(format_wall_time(0.04), "0.0 s");
  EXPECT_EQ(format_wall_time(9.94), "9.9 s");
}

TEST(WallTime, RoundingCarriesIntoTheNextForm) {
  EXPECT_EQ(format_wall_time(9.96), "10 s");
  EXPECT_EQ(format_wall_time(59.6), "1 min 0 s");
  EXPECT_EQ(format_wall_time(3599.6), "1 h 0 min");
}

TEST(WallTime, LongerRuns) {
  EXPECT_EQ(format_wall_time(42.4), "42 s");
  EXPECT_EQ(format_wall_time(187.0), "3 min 7 s");
  EXPECT_EQ(format_wall_time(2.0 * 3600 + 5 * 60 + 10), "2 h 5 min");
}

TEST(WallTime, NonsenseReadsAsZero) {
  EXPECT_EQ(format_wall_time(-1.0), "0.0 s");
  EXPECT_EQ(format_wall_time(std::numeric_limits<double>::quiet_NaN()), "0.0 s");
}

}  // namespace
}  // namespace kev
