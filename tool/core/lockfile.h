#pragma once
// The lockfile model (DESIGN.md section 4): tuned winners keyed by kernel id, then GPU
// architecture ("sm_90"), then device name ("NVIDIA H200"). Reading and writing the JSON
// form lives in io/lockfile_json.h; this file holds the rules: lookup for a build, checks
// against the spec, merging, and when a challenger replaces a locked winner.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/buckets.h"
#include "core/compiler.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"
#include "core/timing_names.h"

namespace kev {

// One bucket's winner (a spec with `dispatch`): the problems whose dimension `by` lies in
// `range` build `params`.
struct LockBucket {
  BucketRange range;
  ParamSet params;
  std::optional<double> time_us;      // over the bucket's problems
  std::optional<double> baseline_us;  // the source defaults', over the same problems
  // A one-size bucket's winner is compiled with its size defined (bucket_compile_define)
  // unless tune found it faster without: false (schema_version 4). Other buckets ignore it.
  bool sized = true;
  friend bool operator==(const LockBucket&, const LockBucket&) = default;
};

struct LockEntry {
  ParamSet params;                    // empty when the entry has buckets
  std::optional<double> time_us;      // the winner's time (geometric mean over problems)
  std::optional<double> baseline_us;  // the source defaults' time, measured the same way
  std::string tuned_with;             // provenance: tool, CUDA, driver, strategy, evaluations
  // How time_us was taken (core/runner.h's timing_method): "cold-dirty-l2" from `tune --l2
  // dirty`, "cold-l2+write-back" from `tune --l2 clean+write-back`; empty or "cold-l2" for
  // the default. `check` and `compare` time the winner the same way.
  std::string timing;
  // What compiled the timed code, when not nvcc (the build's compiler, the default): "nvrtc"
  // from `tune --compiler nvrtc`. `check` and `compare` compile the winner the same way.
  std::string compiler;
  // The revision of the L2 flush its times were taken after (core/timing_names.h's
  // kFlushRevision); 0: the entry does not say (tuned before entries said: revision 2 or
  // older). Times taken after one flush do not compare with times taken after another.
  int flush = 0;
  bool is_default = false;  // the architecture's default device
  // With buckets, one winner per bucket of problem dimension `by` (ordered, disjoint)
  // instead of `params`.
  std::string by;
  std::vector<LockBucket> buckets;

  [[nodiscard]] std::optional<double> speedup() const;  // baseline / time
  [[nodiscard]] bool has_buckets() const { return !buckets.empty(); }
  // The parameters a problem with `by` = `value` builds: its bucket's, else the nearest
  // bucket's; `params` for an entry without buckets.
  [[nodiscard]] const ParamSet& params_for(std::int64_t value) const;
  // The bucket serving `value` (as params_for picks it); null for an entry without buckets.
  [[nodiscard]] const LockBucket* bucket_for(std::int64_t value) const;
  // The entry as the winner of one of its buckets alone: the bucket's params and times,
  // the entry's other fields, no buckets.
  [[nodiscard]] LockEntry bucket_winner(const LockBucket& bucket) const;
  friend bool operator==(const LockEntry&, const LockEntry&) = default;
};

using DeviceEntries = std::map<std::string, LockEntry>;    // device name -> entry
using ArchTargets = std::map<std::string, DeviceEntries>;  // "sm_90" -> devices

// A source variant that `evolve` adopted: a full copy of the kernel's source file with the
// kernel rewritten. Builds compile it instead of the original while it is current.
struct LockedVariant {
  std::string file;              // relative to the lockfile's directory
  std::string hash;              // "sha256:<hex>" of the variant file as recorded
  std::string base_source_hash;  // "sha256:<hex>" of the original it was evolved from
  // Recorded by an older kernelevo as a bare path: no hashes, so never current.
  [[nodiscard]] bool has_hashes() const { return !hash.empty(); }
  friend bool operator==(const LockedVariant&, const LockedVariant&) = default;
};

struct LockedKernel {
  std::string source;       // path relative to the project root
  std::string source_hash;  // "sha256:<hex>" of the source the entries were measured on
  std::optional<LockedVariant> variant;  // a source variant file, when one won
  ArchTargets targets;
  friend bool operator==(const LockedKernel&, const LockedKernel&) = default;
};

struct Lockfile {
  // The newest schema this kernelevo reads. A file is written with the oldest schema that
  // holds its contents (required_schema_version), so older readers keep reading files
  // without variants and refuse the others with "upgrade kernelevo".
  static constexpr int kSchemaVersion = 4;
  int schema_version = 1;
  std::map<std::string, LockedKernel> kernels;  // by kernel id
  friend bool operator==(const Lockfile&, const Lockfile&) = default;
};

// 3 when an entry has buckets, else 2 when a kernel records a variant with hashes (an
// object), else 1.
[[nodiscard]] int required_schema_version(const Lockfile& lock);

// --- architectures ----------------------------------------------------------------------

struct Arch {
  int major = 0;
  int minor = 0;
  std::string suffix;  // "a" (sm_90a) or "f" (sm_100f); empty for the portable target
  [[nodiscard]] std::string to_string() const;  // "sm_90a"
};
// Parses "sm_90", "sm_86", "sm_100", "sm_90a", "sm_120f": the last digit is the minor.
[[nodiscard]] std::optional<Arch> parse_arch(std::string_view text);

// --- lookup for a build or a run --------------------------------------------------------

enum class LockMatch {
  named_device,    // the device the build named
  only_device,     // the only device locked for the architecture
  default_device,  // the device marked as the architecture's default
  none,            // nothing usable: the source defaults apply
};
[[nodiscard]] const char* to_string(LockMatch m);

struct LockChoice {
  const LockEntry* entry = nullptr;  // null: use the source defaults
  std::string arch;                  // the architecture the entry is locked under
  std::string device;
  LockMatch match = LockMatch::none;
  bool lower_arch = false;  // taken from a lower minor of the same major
  std::string why;          // one line for reports and generated headers
};

// The architecture a kernel's entries are locked under when it is tuned or checked on a
// GPU of `gpu_arch`: the spec's own `arch` when it names one (code built for sm_90a must
// not be taken by a portable sm_90 build), else the GPU's.
[[nodiscard]] std::string lock_arch(const KernelSpec* spec, const std::string& gpu_arch);

// The entry a build for `arch` (optionally on `device`) uses: the named device, else the
// only device of that architecture, else the one marked default; then the same choice
// under the nearest lower minor of the same major (sm_89 -> sm_87 -> sm_86 -> ... sm_80);
// then none. An arch-specific target ("sm_90a") first tries its own entries, then the
// portable ones of the same version ("sm_90"), then lower minors; portable targets never
// use arch-specific entries, whose code may need features the target lacks.
[[nodiscard]] LockChoice lookup(const Lockfile& lock, const std::string& kernel_id,
                                const std::string& arch,
                                const std::optional<std::string>& device = std::nullopt);

// --- checks against the spec ------------------------------------------------------------

struct ParamCheck {
  std::vector<std::string> missing;  // spec params the entry lacks: they keep the source default
};
// Every name must be a parameter of the spec and every value one of its listed values
// (integers and floats compare by numeric value, strings exactly). Missing parameters are
// allowed and listed: the source's default applies to them. `context` names the entry in
// errors ("kernelevo.lock.json: softmax_rows sm_90 NVIDIA H200").
[[nodiscard]] Result<ParamCheck> check_params(const ParamSet& params, const KernelSpec& spec,
                                              const std::string& context);

// `full` (every parameter: the locked values and the source defaults for the rest, as a
// build compiles it) must satisfy each of the spec's constraints, at every problem of the
// spec when it mentions problem sizes (a constraint that cannot be evaluated does not hold,
// as in the search space). Every value being listed is not enough: a lockfile could lock a
// combination the constraints exclude, which no tune ran.
[[nodiscard]] Status check_constraints(const ParamSet& full, const KernelSpec& spec,
                                       const std::string& context);

// True when the kernel's entries were measured on another version of its source.
[[nodiscard]] bool is_stale(const LockedKernel& kernel, const std::string& current_source_hash);

// --- changes ----------------------------------------------------------------------------

// Sets (adds or replaces) one entry. The first device locked for an architecture becomes
// its default; a replaced entry keeps its default mark.
void set_entry(Lockfile& lock, const std::string& kernel_id, const std::string& source,
               const std::string& source_hash, const std::string& arch, const std::string& device,
               LockEntry entry);

// Sets one bucket's winner of a device's entry: the entry becomes one with buckets of `by`
// (an entry without buckets, or with buckets of another dimension, loses them), buckets
// overlapping `bucket.range` are replaced, and the buckets stay ordered. `tuned_with`
// replaces the entry's; a `timing`, `compiler` or `flush` other than the entry's starts it
// over (the other buckets' times were taken another way, or of other code). Default marks as
// set_entry.
void set_bucket(Lockfile& lock, const std::string& kernel_id, const std::string& source,
                const std::string& source_hash, const std::string& arch, const std::string& device,
                const std::string& by, LockBucket bucket, const std::string& tuned_with,
                const std::string& timing = "", const std::string& compiler = "", int flush = 0);

// Whether an entry's times were taken from a dirty L2 (LockEntry::timing).
[[nodiscard]] inline bool timed_dirty(const std::string& timing) {
  return timing == kTimingColdDirtyL2;
}
[[nodiscard]] inline bool timed_dirty(const LockEntry& e) { return timed_dirty(e.timing); }
// Whether an entry's times were charged the write-back each run left (`tune --l2
// clean+write-back`; LockEntry::timing).
[[nodiscard]] inline bool timed_with_writeback(const std::string& timing) {
  return timing == kTimingWriteBack;
}
[[nodiscard]] inline bool timed_with_writeback(const LockEntry& e) {
  return timed_with_writeback(e.timing);
}
// The L2 an entry's times started from, as messages name it: "clean", "dirty", or "clean
// (write-back charged)".
[[nodiscard]] std::string l2_state_text(const std::string& timing);
// What an entry's `tuned_with` adds for how its times were taken: ", dirty L2", ", write-back
// charged", or nothing for the default clean L2.
[[nodiscard]] std::string l2_provenance(const std::string& timing);

// What compiled an entry's code (LockEntry::compiler; empty or "nvcc": nvcc).
[[nodiscard]] inline DeviceCodeCompiler device_code_of(const LockEntry& e) {
  return device_code_of(e.compiler);
}

// Why the times of two entries for one slot do not compare: one was timed from another L2
// state ("dirty" or "clean" each), or is of code another compiler made (each's compiler
// name), or was timed after another revision of the L2 flush (each's flush_text); nullopt
// when they compare. Asked in that order.
struct MeasuredOtherwise {
  enum class Kind { l2_state, compiler, flush } kind;
  std::string first;   // `first`'s L2 state, compiler or flush
  std::string second;  // `second`'s
};
// "revision 3", or "revision 2 or older" for an entry that does not say (LockEntry::flush).
[[nodiscard]] std::string flush_text(int flush);
[[nodiscard]] std::optional<MeasuredOtherwise> measured_otherwise(const LockEntry& first,
                                                                  const LockEntry& second);

// A measured configuration: median and confidence interval in microseconds.
struct Measured {
  double median_us = 0.0;
  double ci_low_us = 0.0;
  double ci_high_us = 0.0;
};
[[nodiscard]] std::optional<Measured> measured(const Outcome& outcome);  // passed only

struct ReplaceRule {
  double min_improvement = 0.02;  // challenger must be at least 2% faster
};
// Whether a challenger replaces the locked winner: its median at least `min_improvement`
// below the winner's (re-measured in the same run), and the confidence intervals apart
// (the challenger's upper bound below the winner's lower bound). Re-tuning an unchanged
// kernel therefore does not churn the lockfile.
[[nodiscard]] bool should_replace(const Measured& locked, const Measured& challenger,
                                  const ReplaceRule& rule = {});

// --- merging ----------------------------------------------------------------------------

struct MergeConflict {
  std::string kernel_id;
  std::string arch;  // empty when the whole kernel conflicted (different sources)
  std::string device;
  std::string resolution;  // what was kept and why, one line
};

struct MergeOptions {
  // The hash of a kernel's source as it is now (by the `source` path), when known.
  std::function<std::optional<std::string>(const std::string& source)> current_source_hash;
};

struct MergeResult {
  Lockfile merged;
  std::vector<MergeConflict> conflicts;
};

// Merges `incoming` into `base`. The rule:
//  - A kernel on one side only is taken as is.
//  - Same source (source_hash and variant equal): the union of the entries. Where both
//    sides lock the same kernel / arch / device with different params, the lower time_us
//    wins (an entry with a time beats one without; a tie keeps base's), and it is reported;
//    but entries timed from different L2 states or of different compilers' code do not
//    compare, and incoming's (the later file's) is kept, reported with the reason.
//    Equal params keep base's entry unchanged. When both sides mark different devices of
//    one architecture as default, base's mark stays (reported).
//  - Different sources: entries measured on different sources are not comparable and a
//    kernel's entries must all belong to the source its source_hash names, so one side's
//    kernel is kept whole: the side whose source_hash matches the current source (when
//    `current_source_hash` knows it), otherwise `incoming` (the newer file: `merge` takes
//    its inputs oldest first). The dropped side's entries are reported.
[[nodiscard]] MergeResult merge(const Lockfile& base, const Lockfile& incoming,
                                const MergeOptions& options = {});

}  // namespace kev
