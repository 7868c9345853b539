#include "core/replay_measurer.h"

#include <cmath>

namespace kev {

namespace {

// The recording's point for `params`, or nullopt when a dimension's value is missing or
// was never recorded.
std::optional<Point> point_of(const Recording& rec, const ParamSet& params) {
  Point p;
  for (const auto& dim : rec.dims) {
    const auto it = params.find(dim.name);
    if (it == params.end()) return std::nullopt;
    std::optional<std::uint32_t> index;
    for (std::size_t i = 0; i < dim.values.size(); ++i)
      if (same_value(dim.values[i], it->second)) index = static_cast<std::uint32_t>(i);
    if (!index) return std::nullopt;
    p.push_back(*index);
  }
  return p;
}

Measurement not_recorded(std::string detail) {
  Measurement m;
  m.disposition = Disposition::invalid;
  m.detail = std::move(detail);
  return m;
}

}  // namespace

void ReplayMeasurer::add(const std::string& side, Recording recording) {
  auto kernel = recording.kernel;
  recordings_[side].insert_or_assign(std::move(kernel), std::move(recording));
}

Measurement ReplayMeasurer::measure(const MeasureTarget& target) {
  const auto side = recordings_.find(target.side);
  if (side == recordings_.end())
    return not_recorded("no recording given for the " + target.side + " side");
  const auto rec = side->second.find(target.kernel_id);
  if (rec == side->second.end())
    return not_recorded("no recording of kernel " + target.kernel_id + " (" + target.side + ")");
  const auto point = point_of(rec->second, target.params);
  const Outcome* recorded = point ? rec->second.find(*point) : nullptr;
  if (recorded == nullptr)
    return not_recorded("configuration not in the recording of " + target.kernel_id);

  Measurement m;
  m.disposition = recorded->disposition;
  m.detail = recorded->detail;
  if (!recorded->passed()) return m;
  if (recorded->samples_us.empty()) {
    m.samples_us.push_back(*recorded->time_us);
    return m;
  }
  const auto n = recorded->samples_us.size();
  for (int i = 0; i < draws_; ++i) m.samples_us.push_back(recorded->samples_us[rng_() % n]);
  return m;
}

}  // namespace kev
