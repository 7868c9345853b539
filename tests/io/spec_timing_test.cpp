// A spec's `timing` (KernelSpec::time_alone), parsed with errors naming file:line:column.
#include <gtest/gtest.h>

#include "io/spec_yaml.h"
#include "support/spec_yaml_cases.h"

namespace kev {
namespace {

using test_support::first_error;

SpecParse parse(const std::string& timing) {
  return test_support::parse_spec_with("timing", timing);
}

TEST(SpecTiming, AloneAndAutoAreRead) {
  const SpecParse alone = parse("alone");
  ASSERT_TRUE(alone.errors.empty()) << first_error(alone);
  EXPECT_TRUE(alone.specs.at(0).time_alone);
  const SpecParse automatic = parse("auto");
  ASSERT_TRUE(automatic.errors.empty()) << first_error(automatic);
  EXPECT_FALSE(automatic.specs.at(0).time_alone);
}

TEST(SpecTiming, WithoutItShortLaunchesMayBeBatched) {
  const SpecParse p = test_support::parse_spec_without_it();
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  EXPECT_FALSE(p.specs.at(0).time_alone);
}

TEST(SpecTiming, AnythingElseIsAnErrorNamingFileLineAndColumn) {
  for (const std::string bad : {"batched", "ALONE", "[alone]", "{launches: alone}"}) {
    const SpecParse p = parse(bad);
    ASSERT_FALSE(p.errors.empty()) << bad;
    const std::string e = first_error(p);
    EXPECT_EQ(e.rfind("proj/kernelevo.yaml:6:", 0), 0u) << e;
    EXPECT_NE(e.find("'timing'"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace kev
