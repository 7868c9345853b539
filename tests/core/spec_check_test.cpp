#include "core/spec_check.h"

#include <gtest/gtest.h>

#include "spec_fixture.h"
#include "support/cpu_time.h"

namespace kev {
namespace {

using testing::param;

// Expressions of kernelevo.yaml, at column 14 of `line`.
Expr expr(std::string_view text, int line = 7) {
  return testing::expr(text, {"kernelevo.yaml", line, 14});
}

// One parameter B, one problem dimension n, an output of `count` floats, one block.
KernelSpec spec_with_count(std::string_view count, std::int64_t n) {
  KernelSpec spec;
  spec.id = "k";
  spec.where = {"kernelevo.yaml", 2, 5};
  spec.params = {param("B", {1, 2, 4})};
  spec.problems = {Problem{{{"n", n}}, {"kernelevo.yaml", 5, 16}}};
  ArgSpec y;
  y.name = "y";
  y.pointer = true;
  y.output = true;
  y.count = expr(count);
  y.where = {"kernelevo.yaml", 7, 9};
  spec.args = {y};
  spec.launch.grid = {expr("1", 9)};
  spec.launch.block = {expr("32", 9)};
  return spec;
}

constexpr std::int64_t k2To62 = std::int64_t{1} << 62;

TEST(SpecCheck, ACountThatOverflowsAtEveryPointIsAnError) {
  const auto errors = check_spec(spec_with_count("n * 4 * B", k2To62));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("no configuration can be launched"), std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[0].message.find("integer overflow at '*'"), std::string::npos)
      << errors[0].message;
  EXPECT_NE(errors[0].message.find("B=1"), std::string::npos) << errors[0].message;
  EXPECT_EQ(errors[0].where.file, "kernelevo.yaml");
  EXPECT_EQ(errors[0].where.line, 7);
  EXPECT_EQ(errors[0].code, ExitCode::usage);
}

TEST(SpecCheck, ACountThatOverflowsAtSomePointsOnlyIsFine) {
  // With n = 2^61, n * B overflows int64 for B = 4 and its bytes 64 bits for B = 2; B = 1
  // is fine.
  EXPECT_TRUE(check_spec(spec_with_count("n * B", k2To62 / 2)).empty());
  EXPECT_TRUE(check_spec(spec_with_count("n * B", 1024)).empty());
}

TEST(SpecCheck, ByteSizesBeyondSixtyFourBitsAreAnError) {
  // 2^62 floats fit in int64 as a count, not as 2^64 bytes.
  const auto errors = check_spec(spec_with_count("n", k2To62));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("bytes"), std::string::npos) << errors[0].message;
  EXPECT_EQ(errors[0].where.line, 7);
}

TEST(SpecCheck, LaunchGeometryOutOfRangeEverywhereIsAnError) {
  KernelSpec spec = spec_with_count("n", 1024);
  spec.launch.block = {expr("B * 2048", 9)};  // above 1024 threads for every B
  const auto errors = check_spec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("block"), std::string::npos) << errors[0].message;
  EXPECT_EQ(errors[0].where.line, 9);
}

TEST(SpecCheck, AValidateShapeThatCannotBeLaunchedIsAnError) {
  KernelSpec spec = spec_with_count("n * 4 * B", 1024);
  spec.validate = {Problem{{{"n", k2To62}}, {"kernelevo.yaml", 6, 16}}};
  const auto errors = check_spec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("n=4611686018427387904"), std::string::npos)
      << errors[0].message;
}

// sm_count is the device's, known at launch: launch and argument expressions may use it, a
// constraint (which decides the space on every device) may not, nor may a parameter or
// problem dimension take its name.
TEST(SpecCheck, SmCountServesLaunchesNotConstraints) {
  KernelSpec spec = spec_with_count("n * B", 1024);
  spec.launch.grid = {expr("min(n, sm_count * B)", 9)};
  EXPECT_TRUE(check_spec(spec).empty());

  spec.constraints = {expr("B <= sm_count", 4)};
  auto errors = check_spec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("'sm_count' (the device's multiprocessor count) is known only "
                                   "at launch"),
            std::string::npos)
      << errors[0].message;
  EXPECT_EQ(errors[0].where.line, 4);

  spec.constraints.clear();
  spec.params.push_back(param("sm_count", {1}));
  errors = check_spec(spec);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("'sm_count' cannot name a parameter"), std::string::npos)
      << errors[0].message;

  spec.params.pop_back();
  spec.problems = {Problem{{{"n", 1024}, {"sm_count", 8}}, {"kernelevo.yaml", 5, 16}}};
  errors = check_spec(spec);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("'sm_count' cannot name a problem dimension"), std::string::npos)
      << errors[0].message;
}

TEST(SpecCheck, HugeSpacesAreCheckedQuickly) {
  KernelSpec spec = spec_with_count("n * 4 * B", k2To62);
  KernelSpec huge = testing::huge_spec();
  for (auto& p : huge.params)
    if (p.name != "A") spec.params.push_back(std::move(p));  // B and P0..P9: 3 * 40^10 points
  const test_support::ThreadCpuTimer cpu;                    // not the wall clock: a loaded machine
  const auto errors = check_spec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("none of the"), std::string::npos) << errors[0].message;
  // A constraint that excludes everything is found although the space has 3 * 40^10 points.
  spec.args[0].count = expr("n");
  spec.constraints = {expr("P2 + P8 > 100")};
  const auto empty = check_spec(spec);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_NE(empty[0].message.find("no valid configuration"), std::string::npos) << empty[0].message;
  EXPECT_LT(cpu.seconds(), 0.5);
}

TEST(SpecCheck, ExpressionsInMessagesAreQuotedShortly) {
  // An undefined name inside a very long expression: the message quotes an excerpt.
  std::string text = "zz";
  for (int i = 0; i < 20000; ++i) text += " + B";
  KernelSpec spec = spec_with_count("n", 1024);
  spec.constraints = {expr(text)};
  const auto errors = check_spec(spec);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("undefined name 'zz'"), std::string::npos);
  EXPECT_LT(errors[0].message.size(), 400u) << errors[0].message.size();
}

}  // namespace
}  // namespace kev
