#include "core/shard.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kev {
namespace {

TEST(Shard, ParsesOneBasedIndexOverCount) {
  auto s = parse_shard("2/4");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
  auto one = parse_shard("1/1");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->index, 1u);
}

TEST(Shard, RejectsMalformedOrOutOfRange) {
  for (const char* bad :
       {"", "2", "0/4", "5/4", "1/0", "a/4", "1/b", "-1/4", "1/4/2", " 1/4", "1/4 "}) {
    auto s = parse_shard(bad);
    EXPECT_FALSE(s) << bad;
    if (!s) {
      EXPECT_EQ(s.error().code, ExitCode::usage) << bad;
      EXPECT_NE(s.error().message.find("I/N"), std::string::npos) << bad;
    }
  }
}

TEST(Shard, SplitsSortedIdsRoundRobin) {
  const std::vector<std::string> ids{"softmax", "axpy", "rmsnorm", "gemm", "copy"};
  // Sorted: axpy, copy, gemm, rmsnorm, softmax.
  EXPECT_EQ(shard_ids(ids, {1, 2}), (std::vector<std::string>{"axpy", "gemm", "softmax"}));
  EXPECT_EQ(shard_ids(ids, {2, 2}), (std::vector<std::string>{"copy", "rmsnorm"}));
  EXPECT_EQ(shard_ids(ids, {3, 3}), (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(shard_ids(ids, {1, 1}),
            (std::vector<std::string>{"axpy", "copy", "gemm", "rmsnorm", "softmax"}));
  EXPECT_TRUE(shard_ids(ids, {7, 8}).empty());
}

TEST(Shard, EveryKernelInExactlyOneShardWhateverTheInputOrder) {
  std::vector<std::string> ids{"k3", "k1", "k0", "k2", "k5", "k4", "k6"};
  std::vector<std::string> reversed(ids.rbegin(), ids.rend());
  std::vector<std::string> all;
  for (std::size_t i = 1; i <= 3; ++i) {
    auto mine = shard_ids(ids, {i, 3});
    EXPECT_EQ(mine, shard_ids(reversed, {i, 3}));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"k0", "k1", "k2", "k3", "k4", "k5", "k6"}));
}

}  // namespace
}  // namespace kev
