#include "core/wall_time.h"

#include <cmath>
#include <cstdio>

namespace kev {

std::string format_wall_time(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) seconds = 0.0;
  char buf[64];
  // Rounded first, so 9.96 s is "10 s" rather than "10.0 s", and 59.6 s is "1 min 0 s".
  if (std::round(seconds * 10.0) < 100.0) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    return buf;
  }
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 60) {
    std::snprintf(buf, sizeof buf, "%lld s", whole);
  } else if (whole < 3600) {
    std::snprintf(buf, sizeof buf, "%lld min %lld s", whole / 60, whole % 60);
  } else {
    const long long minutes = (whole + 30) / 60;
    std::snprintf(buf, sizeof buf, "%lld h %lld min", minutes / 60, minutes % 60);
  }
  return buf;
}

}  // namespace kev
