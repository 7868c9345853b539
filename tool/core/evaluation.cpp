#include "core/evaluation.h"

#include <array>
#include <cmath>
#include <sstream>
#include <utility>

namespace kev {

namespace {
constexpr std::array<std::pair<Disposition, const char*>, 7> kNames{{
    {Disposition::passed, "passed"},
    {Disposition::compile_failed, "compile_failed"},
    {Disposition::launch_failed, "launch_failed"},
    {Disposition::incorrect, "incorrect"},
    {Disposition::timeout, "timeout"},
    {Disposition::crashed, "crashed"},
    {Disposition::invalid, "invalid"},
}};
}  // namespace

const char* to_string(Disposition d) {
  for (const auto& [k, name] : kNames)
    if (k == d) return name;
  return "invalid";
}

std::optional<Disposition> parse_disposition(std::string_view s) {
  for (const auto& [k, name] : kNames)
    if (s == name) return k;
  return std::nullopt;
}

bool usable_time(double t) { return std::isfinite(t) && t >= 0; }

bool recorded_time(double t) { return t >= kMinRecordedTimeUs && t <= kMaxRecordedTimeUs; }

std::string time_text(double t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace kev
