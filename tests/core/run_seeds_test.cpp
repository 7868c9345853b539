// The runner's seeds: the values the GPU runs were measured with stay the same, and no two
// buffers share one.
#include "core/run_seeds.h"

#include <gtest/gtest.h>

#include <set>

namespace kev {
namespace {

TEST(RunSeeds, ValuesStayAsMeasured) {
  EXPECT_EQ(input_seed(1, 0, 0, 0), 0x9f271df831b70d7bull);
  EXPECT_EQ(input_seed(7, 2, 3, 1), 0xc736719de9d0c85bull);
  EXPECT_EQ(decoy_seed(7, 2, 1), 0x6286906424dbdf6full);
  EXPECT_EQ(timed_launch_seed(7, 2), 0x4168f16cac68fd69ull);
  EXPECT_EQ(batch_seed(7, 2), 0x1a7a294920d8bb58ull);
}

TEST(RunSeeds, EveryBufferHasItsOwn) {
  std::set<std::uint64_t> seen;
  for (std::size_t shape = 0; shape < 3; ++shape)
    for (std::size_t round = 0; round < 5; ++round)
      for (std::size_t arg = 0; arg < 4; ++arg) seen.insert(input_seed(1, shape, round, arg));
  for (std::size_t shape = 0; shape < 3; ++shape)
    for (std::size_t arg = 0; arg < 4; ++arg) seen.insert(decoy_seed(1, shape, arg));
  EXPECT_EQ(seen.size(), 3u * 5 * 4 + 3 * 4);
  EXPECT_NE(input_seed(1, 0, 0, 0), input_seed(2, 0, 0, 0));
  EXPECT_NE(timed_launch_seed(1, 0), batch_seed(1, 0));
}

}  // namespace
}  // namespace kev
