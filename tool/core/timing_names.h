#pragma once
// The names of the ways times are taken (core/runner.h's timing_method), as traces and
// lockfile entries record them: times taken one way do not compare with times taken another.

namespace kev {

inline constexpr const char* kTimingColdL2 = "cold-l2";             // the default
inline constexpr const char* kTimingColdDirtyL2 = "cold-dirty-l2";  // TimingOptions::dirty_l2
inline constexpr const char* kTimingWriteBack = "cold-l2+write-back";
inline constexpr const char* kTimingWarmL2 = "warm-l2";

// The revision of the L2 flush before each timed launch (docs/evaluator.md), as traces record
// it: 1 wrote and read back a buffer twice the L2; 2 first ran 256 KiB of other code on every
// SM (the kernel's code cold too); 3 first returns the timed buffers' lines to the normal
// eviction priority (a line marked evict-last outlived the flush). A trace from before traces
// said reads as 2.
inline constexpr int kFlushRevision = 3;
inline constexpr int kFlushRevisionBeforeTracesSaid = 2;
// The largest revision a trace or a lockfile entry may say (a later kernelevo's, not any
// number).
inline constexpr int kMaxFlushRevision = 1000;

}  // namespace kev
