#include "core/l2_choice.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

// Each --l2 name sets the timer one way and is recorded as its lockfile timing; the default
// clean L2 is not written.
TEST(L2Choice, EachNameSetsTheTimerAndItsLockfileTiming) {
  const std::vector<std::string> names = l2_choice_names();
  ASSERT_EQ(names, (std::vector<std::string>{"clean", "dirty", "clean+write-back"}));
  const L2Choice clean = l2_choice("clean");
  EXPECT_FALSE(clean.dirty_l2);
  EXPECT_FALSE(clean.charge_writeback);
  EXPECT_EQ(lock_timing(clean), "");
  const L2Choice dirty = l2_choice("dirty");
  EXPECT_TRUE(dirty.dirty_l2);
  EXPECT_FALSE(dirty.charge_writeback);
  EXPECT_EQ(lock_timing(dirty), kTimingColdDirtyL2);
  const L2Choice charged = l2_choice("clean+write-back");
  EXPECT_FALSE(charged.dirty_l2);
  EXPECT_TRUE(charged.charge_writeback);
  EXPECT_EQ(lock_timing(charged), kTimingWriteBack);
}

}  // namespace
}  // namespace kev
