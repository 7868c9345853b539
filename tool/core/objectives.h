#pragma once
// Objectives besides time: a spec's `objectives: {minimize: [registers, local_bytes],
// within: 0.02}` names resources of the compiled kernel (core/evaluation.h's
// KernelResources) to keep low. The tune reports the Pareto front of time and those
// resources, and locks the configuration the rule picks: among the passed configurations
// within `within` of the fastest time, the one lowest in the first resource, ties broken by
// the next, then by time.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evaluation.h"
#include "core/result.h"

namespace kev {

enum class Resource { registers, shared_bytes, local_bytes };
[[nodiscard]] const char* to_string(Resource r);  // "registers", "shared_bytes", "local_bytes"
[[nodiscard]] std::optional<Resource> parse_resource(std::string_view name);
[[nodiscard]] std::string resource_names();  // "registers, shared_bytes, local_bytes"
[[nodiscard]] int resource_value(const KernelResources& r, Resource which);

struct ObjectivesSpec {
  static constexpr double kDefaultWithin = 0.02;
  static constexpr double kMaxWithin = 0.5;
  std::vector<Resource> minimize;  // in order of preference; not empty
  double within = kDefaultWithin;  // a configuration this much slower than the fastest may win
};

// One passed configuration as the rule sees it (`index` into the caller's list).
struct ObjectiveCandidate {
  std::size_t index = 0;
  double time_us = 0.0;
  KernelResources resources;
};

// The candidates no other candidate beats in time and every resource of `minimize` at once
// (at least as good in all and better in one), ordered by time.
[[nodiscard]] std::vector<ObjectiveCandidate> pareto_front(
    const std::vector<ObjectiveCandidate>& candidates, const std::vector<Resource>& minimize);

// The candidate the rule locks; nullopt when `candidates` is empty.
[[nodiscard]] std::optional<ObjectiveCandidate> choose_by_objectives(
    const std::vector<ObjectiveCandidate>& candidates, const ObjectivesSpec& objectives);

// "registers, then local_bytes": the order the rule compares them in.
[[nodiscard]] std::string resource_order_text(const std::vector<Resource>& which);

// "registers 40, local_bytes 0": the named resources of `r`, for tables and notes.
[[nodiscard]] std::string resources_text(const KernelResources& r,
                                         const std::vector<Resource>& which);

}  // namespace kev
