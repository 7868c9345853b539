#pragma once
// Wall time for people: "0.6 s", "42 s", "3 min 7 s", "2 h 5 min".
#include <string>

namespace kev {

// Tenths of a second below 10 s (a run of a fraction of a second must not read "0 s"),
// whole seconds below a minute, then minutes and seconds, then hours and minutes. Negative
// or non-finite input reads as "0.0 s".
[[nodiscard]] std::string format_wall_time(double seconds);

}  // namespace kev
