// Kernel times for people: the two styles the CLI's outputs show, one function.
#include "core/time_text.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

TEST(TimeText, TenthsForMessagesAndProgress) {
  EXPECT_EQ(format_time_us(1.0), "1.0 us");
  EXPECT_EQ(format_time_us(5.384), "5.4 us");
  EXPECT_EQ(format_time_us(143.0), "143.0 us");
  EXPECT_EQ(format_time_us(598.0), "598.0 us");
  EXPECT_EQ(format_time_us(999.94), "999.9 us");
  // Above a millisecond the copies in the evolve summary, the prompts and the merge
  // messages wrote "1234.0 us"; the one function writes what progress always did.
  EXPECT_EQ(format_time_us(1234.0), "1.234 ms");
  EXPECT_EQ(format_time_us(12340.0), "12.340 ms");
  EXPECT_EQ(format_time_us(2.5e6), "2.50 s");
}

TEST(TimeText, CompactForReportTablesAndGateEvidence) {
  const auto compact = [](double us) { return format_time_us(us, TimeDigits::compact); };
  EXPECT_EQ(compact(1.0), "1.00 us");
  EXPECT_EQ(compact(5.384), "5.38 us");
  EXPECT_EQ(compact(70.1), "70.1 us");
  EXPECT_EQ(compact(143.0), "143 us");  // as report_tune.md shows it
  EXPECT_EQ(compact(1234.0), "1234 us");
  EXPECT_EQ(compact(12340.0), "12.34 ms");
  EXPECT_EQ(compact(2.5e6), "2500.00 ms");
}

}  // namespace
}  // namespace kev
