#pragma once
// What evaluating one configuration produced. Dispositions never change meaning:
// they are written to traces and reports that users keep.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/value.h"

namespace kev {

enum class Disposition {
  passed,          // compiled, verified, timed
  compile_failed,  // the compiler rejected it
  launch_failed,   // the launch was refused (too many threads, too much shared memory...)
  incorrect,  // verification failed (wrong values, unwritten outputs, guard or const violation)
  timeout,    // the watchdog killed it
  crashed,    // it faulted (illegal address...) and took the worker down
  invalid,    // rejected before running (constraint, or a suspicious time)
};
[[nodiscard]] const char* to_string(Disposition d);
[[nodiscard]] std::optional<Disposition> parse_disposition(std::string_view s);

// Parameter name -> value, ordered by name.
using ParamSet = std::map<std::string, Value>;

// What the compiled kernel takes of the GPU, as the driver reports it for the loaded image.
struct KernelResources {
  int registers = 0;  // per thread
  int shared_bytes =
      0;  // per block: static shared memory plus the launch's dynamic (largest problem)
  int local_bytes = 0;  // per thread: local memory (register spills and stack)
  friend bool operator==(const KernelResources&, const KernelResources&) = default;
};

struct Outcome {
  Disposition disposition = Disposition::invalid;
  // Median time in microseconds (passed only). For several problems: the geometric mean
  // over problems of time relative to the baseline, times the baseline's geometric mean.
  std::optional<double> time_us;
  std::optional<double> ci_low_us;  // confidence interval of the median
  std::optional<double> ci_high_us;
  std::vector<double> samples_us;            // raw samples where the backend has them
  std::string detail;                        // compiler log excerpt, mismatch description...
  std::optional<KernelResources> resources;  // passed, where the runner reports them
  [[nodiscard]] bool passed() const { return disposition == Disposition::passed; }
};

// A time read from a file (a trace, a recording) is usable when finite and not negative: a
// negative or NaN time would pass any comparison with a recorded one.
[[nodiscard]] bool usable_time(double t);
// The times kernelevo records (traces, lockfiles), in microseconds: from a nanosecond (the
// lockfile's finest digit) to 1e10 (hours: above any evaluation's time limit). A time outside,
// read from such a file, is no measurement: an infinite or zero one makes ratios that no
// comparison can judge.
inline constexpr double kMinRecordedTimeUs = 0.001;
inline constexpr double kMaxRecordedTimeUs = 1e10;
[[nodiscard]] bool recorded_time(double t);
// "-5", "inf": a time as such messages quote it.
[[nodiscard]] std::string time_text(double t);

}  // namespace kev
