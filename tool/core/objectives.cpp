#include "core/objectives.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace kev {

namespace {

constexpr std::array<Resource, 3> kResources{Resource::registers, Resource::shared_bytes,
                                             Resource::local_bytes};

bool at_least_as_good(const ObjectiveCandidate& a, const ObjectiveCandidate& b,
                      const std::vector<Resource>& minimize) {
  if (a.time_us > b.time_us) return false;
  for (Resource r : minimize)
    if (resource_value(a.resources, r) > resource_value(b.resources, r)) return false;
  return true;
}

}  // namespace

const char* to_string(Resource r) {
  switch (r) {
    case Resource::registers:
      return "registers";
    case Resource::shared_bytes:
      return "shared_bytes";
    case Resource::local_bytes:
      return "local_bytes";
  }
  return "?";
}

std::optional<Resource> parse_resource(std::string_view name) {
  for (Resource r : kResources)
    if (name == to_string(r)) return r;
  return std::nullopt;
}

std::string resource_names() {
  std::string s;
  for (Resource r : kResources) s += (s.empty() ? "" : ", ") + std::string(to_string(r));
  return s;
}

int resource_value(const KernelResources& r, Resource which) {
  switch (which) {
    case Resource::registers:
      return r.registers;
    case Resource::shared_bytes:
      return r.shared_bytes;
    case Resource::local_bytes:
      return r.local_bytes;
  }
  return 0;
}

std::vector<ObjectiveCandidate> pareto_front(const std::vector<ObjectiveCandidate>& candidates,
                                             const std::vector<Resource>& minimize) {
  // Sorted by time, then the resources in order: whatever dominates a candidate, or equals it,
  // comes before it, and so does a point of the front that is at least as good (dominance is
  // transitive), so each candidate is compared with the front alone. Of candidates equal in
  // everything, the first listed stands for them all.
  std::vector<ObjectiveCandidate> sorted = candidates;
  auto key = [&](const ObjectiveCandidate& c) {
    std::vector<int> k;
    for (Resource r : minimize) k.push_back(resource_value(c.resources, r));
    return std::tuple(c.time_us, k, c.index);
  };
  std::sort(
      sorted.begin(), sorted.end(),
      [&](const ObjectiveCandidate& a, const ObjectiveCandidate& b) { return key(a) < key(b); });
  std::vector<ObjectiveCandidate> front;
  for (const ObjectiveCandidate& c : sorted)
    if (std::none_of(front.begin(), front.end(),
                     [&](const ObjectiveCandidate& f) { return at_least_as_good(f, c, minimize); }))
      front.push_back(c);
  return front;
}

std::optional<ObjectiveCandidate> choose_by_objectives(
    const std::vector<ObjectiveCandidate>& candidates, const ObjectivesSpec& objectives) {
  if (candidates.empty()) return std::nullopt;
  double fastest = candidates.front().time_us;
  for (const ObjectiveCandidate& c : candidates) fastest = std::min(fastest, c.time_us);
  const double limit = fastest * (1.0 + objectives.within);
  std::optional<ObjectiveCandidate> best;
  auto key = [&](const ObjectiveCandidate& c) {
    std::vector<int> k;
    for (Resource r : objectives.minimize) k.push_back(resource_value(c.resources, r));
    return k;
  };
  for (const ObjectiveCandidate& c : candidates) {
    if (c.time_us > limit) continue;
    if (!best || key(c) < key(*best) || (key(c) == key(*best) && c.time_us < best->time_us))
      best = c;
  }
  return best;
}

std::string resource_order_text(const std::vector<Resource>& which) {
  std::string s;
  for (Resource r : which) s += (s.empty() ? "" : ", then ") + std::string(to_string(r));
  return s;
}

std::string resources_text(const KernelResources& r, const std::vector<Resource>& which) {
  std::string s;
  for (Resource x : which)
    s += (s.empty() ? "" : ", ") + std::string(to_string(x)) + " " +
         std::to_string(resource_value(r, x));
  return s;
}

}  // namespace kev
