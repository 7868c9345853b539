#include "core/time_text.h"

#include <cstdio>

namespace kev {

std::string format_time_us(double us, TimeDigits digits) {
  char buf[32];
  if (digits == TimeDigits::compact) {
    if (us >= 10000.0)
      std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000.0);
    else if (us >= 100.0)
      std::snprintf(buf, sizeof buf, "%.0f us", us);
    else if (us >= 10.0)
      std::snprintf(buf, sizeof buf, "%.1f us", us);
    else
      std::snprintf(buf, sizeof buf, "%.2f us", us);
    return buf;
  }
  if (us < 1000)
    std::snprintf(buf, sizeof buf, "%.1f us", us);
  else if (us < 1e6)
    std::snprintf(buf, sizeof buf, "%.3f ms", us / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  return buf;
}

}  // namespace kev
