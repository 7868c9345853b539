#pragma once
// A recorded tuning space: dimensions plus the outcome of every configuration that was
// measured (or failed). The common model behind Kernel Tuner cachefiles, T4 results files
// and kernelevo traces, so replay and the strategy benchmark never care where data came from.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/evaluation.h"
#include "core/space.h"

namespace kev {

struct PointHash {
  std::size_t operator()(const Point& p) const noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    for (auto v : p) {
      h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 1099511628211ULL;
    }
    return static_cast<std::size_t>(h);
  }
};

struct RecordedPoint {
  Point point;
  Outcome outcome;
};

class Recording {
 public:
  std::string kernel;
  std::string device;
  std::string format;  // "kernel_tuner", "t4", "kernelevo-trace"
  std::vector<Dimension> dims;

  // Adds or replaces the outcome of `point` (the last record of a point wins).
  void add(Point point, Outcome outcome);
  [[nodiscard]] const std::vector<RecordedPoint>& points() const { return points_; }
  [[nodiscard]] const Outcome* find(const Point& p) const;
  // Fastest passed time in the recording, if any passed.
  [[nodiscard]] std::optional<double> optimum_us() const;
  [[nodiscard]] std::size_t count(Disposition d) const;

 private:
  std::vector<RecordedPoint> points_;
  std::unordered_map<Point, std::size_t, PointHash> index_;
};

}  // namespace kev
