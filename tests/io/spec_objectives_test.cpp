// A spec's `objectives` block (core/objectives.h), parsed with errors naming
// file:line:column.
#include <gtest/gtest.h>

#include "io/spec_yaml.h"
#include "support/spec_yaml_cases.h"

namespace kev {
namespace {

using test_support::first_error;

// The spec with `objectives` as given (on line 6).
SpecParse parse(const std::string& objectives) {
  return test_support::parse_spec_with("objectives", objectives);
}

TEST(SpecObjectives, ParsesWhatToMinimizeAndTheShare) {
  const SpecParse p = parse("{minimize: [registers, local_bytes], within: 0.03}");
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  const auto& o = p.specs.at(0).objectives;
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->minimize, (std::vector<Resource>{Resource::registers, Resource::local_bytes}));
  EXPECT_DOUBLE_EQ(o->within, 0.03);
  const SpecParse one = parse("{minimize: shared_bytes}");
  ASSERT_TRUE(one.errors.empty()) << first_error(one);
  EXPECT_EQ(one.specs.at(0).objectives->minimize, std::vector<Resource>{Resource::shared_bytes});
  EXPECT_DOUBLE_EQ(one.specs.at(0).objectives->within, ObjectivesSpec::kDefaultWithin);
}

TEST(SpecObjectives, WithoutItTheFastestIsLocked) {
  const SpecParse p = test_support::parse_spec_without_it();
  ASSERT_TRUE(p.errors.empty()) << first_error(p);
  EXPECT_FALSE(p.specs.at(0).objectives.has_value());
}

TEST(SpecObjectives, ParseErrorsNameFileLineAndColumn) {
  struct Case {
    std::string objectives;
    std::string error;
  };
  const Case cases[] = {
      {"[registers]",
       "proj/kernelevo.yaml:6:15: error: 'objectives' must be a map such as {minimize: "
       "[registers], within: 0.02}"},
      {"{minimize: [spills]}",
       "proj/kernelevo.yaml:6:26: error: 'objectives.minimize' names 'spills'; expected "
       "registers, shared_bytes, local_bytes"},
      {"{minimize: [registers, registers]}",
       "proj/kernelevo.yaml:6:26: error: 'objectives.minimize' names 'registers' twice"},
      {"{minimize: []}",
       "proj/kernelevo.yaml:6:15: error: 'objectives.minimize' must name at least one of "
       "registers, shared_bytes, local_bytes"},
      {"{minimize: [registers], within: 0.9}",
       "proj/kernelevo.yaml:6:47: error: 'objectives.within' must be a number from 0 to 0.5 (the "
       "share slower than the fastest a configuration may be, 0.02 = 2%)"},
      {"{minimize: [registers], within: nan}",
       "proj/kernelevo.yaml:6:47: error: 'objectives.within' must be a number from 0 to 0.5 (the "
       "share slower than the fastest a configuration may be, 0.02 = 2%)"},
      {"{minimise: [registers]}",
       "proj/kernelevo.yaml:6:16: error: unknown key 'minimise' in objectives; expected one of "
       "minimize, within"},
  };
  for (const Case& c : cases) {
    const SpecParse p = parse(c.objectives);
    ASSERT_FALSE(p.errors.empty()) << c.objectives;
    EXPECT_EQ(first_error(p), c.error) << c.objectives;
  }
}

}  // namespace
}  // namespace kev
