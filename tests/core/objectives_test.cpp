// Objectives besides time (core/objectives.h): the Pareto front and the rule that locks.
#include "core/objectives.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

ObjectiveCandidate at(std::size_t index, double us, int registers, int local = 0) {
  return {index, us, KernelResources{registers, 0, local}};
}

std::vector<std::size_t> indices(const std::vector<ObjectiveCandidate>& cs) {
  std::vector<std::size_t> out;
  for (const auto& c : cs) out.push_back(c.index);
  return out;
}

TEST(Objectives, ParetoFrontKeepsWhatNothingBeatsInTimeAndEveryResource) {
  const std::vector<ObjectiveCandidate> cs{
      at(0, 10.0, 64),  // fastest
      at(1, 10.5, 40),  // leaner, a little slower
      at(2, 11.0, 48),  // beaten by 1 in both
      at(3, 12.0, 32),  // leanest
      at(4, 10.5, 40),  // equal to 1 in everything: 1 stands for it
  };
  EXPECT_EQ(indices(pareto_front(cs, {Resource::registers})), (std::vector<std::size_t>{0, 1, 3}));
  // With local memory as a second objective, 2 (no spills) is on the front as well.
  std::vector<ObjectiveCandidate> spills = cs;
  spills[0].resources.local_bytes = 256;
  spills[1].resources.local_bytes = 128;
  spills[4].resources.local_bytes = 128;
  spills[3].resources.local_bytes = 64;
  EXPECT_EQ(indices(pareto_front(spills, {Resource::registers, Resource::local_bytes})),
            (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(pareto_front({}, {Resource::registers}).empty());
}

TEST(Objectives, TheRuleLocksTheLeanestWithinTheShareOfTheFastest) {
  const std::vector<ObjectiveCandidate> cs{at(0, 10.0, 64), at(1, 10.15, 40), at(2, 10.19, 32),
                                           at(3, 12.0, 16)};
  ObjectivesSpec o;
  o.minimize = {Resource::registers};
  EXPECT_EQ(choose_by_objectives(cs, o)->index, 2u);  // within 2%: 0, 1, 2; 2 is leanest
  o.within = 0.0;
  EXPECT_EQ(choose_by_objectives(cs, o)->index, 0u);  // the fastest alone
  o.within = 0.5;
  EXPECT_EQ(choose_by_objectives(cs, o)->index, 3u);
  EXPECT_FALSE(choose_by_objectives({}, o));
}

TEST(Objectives, TiesGoToTheNextObjectiveThenToTime) {
  ObjectivesSpec o;
  o.minimize = {Resource::registers, Resource::local_bytes};
  const std::vector<ObjectiveCandidate> cs{at(0, 10.0, 32, 64), at(1, 10.1, 32, 0),
                                           at(2, 10.05, 32, 0)};
  EXPECT_EQ(choose_by_objectives(cs, o)->index, 2u);
}

TEST(Objectives, NamesReadBack) {
  for (Resource r : {Resource::registers, Resource::shared_bytes, Resource::local_bytes})
    EXPECT_EQ(parse_resource(to_string(r)), r);
  EXPECT_FALSE(parse_resource("spills"));
  EXPECT_EQ(resource_names(), "registers, shared_bytes, local_bytes");
  EXPECT_EQ(resources_text({40, 4096, 0}, {Resource::registers, Resource::local_bytes}),
            "registers 40, local_bytes 0");
  EXPECT_EQ(resource_order_text({Resource::registers, Resource::shared_bytes}),
            "registers, then shared_bytes");
}

}  // namespace
}  // namespace kev
