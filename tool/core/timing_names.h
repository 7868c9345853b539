#pragma once
// The names of the ways times are taken (core/runner.h's timing_method), as traces and
// lockfile entries record them: times taken one way do not compare with times taken another.

namespace kev {

inline constexpr const char* kTimingColdL2 = "cold-l2";             // the default
inline constexpr const char* kTimingColdDirtyL2 = "cold-dirty-l2";  // TimingOptions::dirty_l2
inline constexpr const char* kTimingWriteBack = "cold-l2+write-back";
inline constexpr const char* kTimingWarmL2 = "warm-l2";

}  // namespace kev
