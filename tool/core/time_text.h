#pragma once
// Kernel times for people, from microseconds (wall time of a run: core/wall_time.h; times in
// a lockfile: io/lockfile_json.h's format_lockfile_us).
#include <string>

namespace kev {

enum class TimeDigits {
  tenths,   // "812.5 us", "1.234 ms", "2.50 s": progress, messages, prompts, summaries
  compact,  // "5.38 us", "70.1 us", "143 us", "12.35 ms": report tables and the gate's evidence
};

[[nodiscard]] std::string format_time_us(double us, TimeDigits digits = TimeDigits::tenths);

}  // namespace kev
