// Every shipped template's tuned problems and `validate` shapes resolve (arguments, tensor
// maps, launch) at spread points of its space, so a box past 256 elements, a tensor map
// covering more than its buffer, or a launch past the H100/H200's limits is caught without a
// GPU. The tuned problems' tensor maps must be describable: those shapes are what a tune
// times, and a map of zeros would send the kernel down its slow path or nowhere.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/arg_layout.h"
#include "core/spec_space.h"
#include "io/spec_loader.h"
#include "support/space_points.h"

namespace kev {
namespace {

constexpr unsigned kMaxSharedBytes = 227 * 1024;  // an sm_90 block's opt-in limit
constexpr unsigned kMaxThreads = 1024;
constexpr int kH200Sms = 132;  // sm_count, as on an H100 or H200

TEST(ShippedTemplates, ResolveAtTheirShapesAndSpreadPoints) {
  const std::string dir = std::string(KERNELEVO_SOURCE_DIR) + "/templates";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no templates/";
  const SpecLoad load = load_specs({dir});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  std::size_t resolved = 0;
  for (const auto& spec : load.specs) {
    if (spec.problems.empty()) continue;
    SpecSpace space(spec, spec.problems);
    const std::vector<Point> points = test_support::spread_points(space, 40, 20261205);
    ASSERT_FALSE(points.empty()) << spec.id << ": no valid point";
    for (const auto& point : points) {
      const ParamSet params = space.to_params(point);
      const auto check = [&](const Problem& problem, bool tuned) {
        const auto r = resolve_problem(spec, params, problem, kH200Sms);
        ASSERT_TRUE(r.ok()) << spec.id << " at " << problem.to_string() << ": "
                            << r.error().to_string();
        EXPECT_LE(r->launch.shared_bytes, kMaxSharedBytes) << spec.id << " " << problem.to_string();
        EXPECT_LE(r->launch.block[0] * r->launch.block[1] * r->launch.block[2], kMaxThreads)
            << spec.id;
        for (const auto& arg : r->args) {
          if (arg.tensor_map && tuned) {
            EXPECT_EQ(arg.tensor_map->unencodable, "")
                << spec.id << " at " << problem.to_string() << ": tensor map '"
                << spec.args[arg.index].name << "'";
          }
        }
        ++resolved;
      };
      for (const auto& problem : spec.problems) check(problem, true);
      for (const auto& shape : spec.validate) check(shape, false);
    }
  }
  EXPECT_GT(resolved, 100u);
}

}  // namespace
}  // namespace kev
