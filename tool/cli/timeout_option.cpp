#include "cli/timeout_option.h"

#include "core/tuner.h"

namespace kev::cli {

Result<double> evaluation_timeout(const std::string& text) {
  if (text.empty()) return 0.0;
  auto limit = parse_duration(text);
  if (!limit) return make_error("--timeout: " + limit.error().message);
  const double s = limit->count();
  if (!(s >= 1.0 && s <= 3600.0)) return make_error("--timeout " + text + ": expected 1s to 1h");
  return s;
}

}  // namespace kev::cli
