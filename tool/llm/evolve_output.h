#pragma once
// What `kernelevo evolve` leaves behind: the winning variant as a source file next to the
// lockfile with a unified diff against the original for review, the lockfile entry naming
// it (with its sha256), and a JSON report of the run.
#include <filesystem>
#include <string>

#include "core/evolve.h"
#include "core/result.h"

namespace kev::llm {

struct VariantFiles {
  std::string relative_source;  // "kernelevo-variants/saxpy.cu", relative to the lockfile's folder
  std::filesystem::path source_path;
  std::filesystem::path diff_path;  // source_path + ".diff"
  std::string sha256;               // "sha256:<hex>" of the variant's text
};

// Writes <lockfile folder>/kernelevo-variants/<kernel_id><ext of the original> and its
// ".diff": a unified diff (`patch -p1` applies it to the original) labelled with
// `original_path` (relative to the project root). Both writes are atomic.
[[nodiscard]] Result<VariantFiles> write_variant(const std::filesystem::path& lockfile,
                                                 const std::string& kernel_id,
                                                 const std::string& original_path,
                                                 const std::string& original_text,
                                                 const std::string& variant_text);

struct VariantLockEntry {
  std::string kernel_id;
  std::string source;              // the original's path relative to the project root
  std::string source_text;         // the original's text (its hash keys staleness)
  std::string arch;                // "sm_90"
  std::string device;              // "NVIDIA H200"
  VariantMeasurement measurement;  // the winner's
  double baseline_us = 0.0;
  std::string label;   // "g1c2"
  std::string timing;  // how both were timed (LockEntry::timing; empty: a clean L2)
};

// Records the winner under the lockfile's lock: the kernel's `variant` names the file with
// its sha256 and the original's (base_source_hash), and the arch/device entry holds its
// params and times, with the variant's sha256 in `tuned_with`. The original's source_hash
// is kept, so editing the original makes the entry (and its variant) stale.
[[nodiscard]] Status record_variant(const std::filesystem::path& lockfile,
                                    const VariantLockEntry& entry, const VariantFiles& files);

// The summary printed on stdout after a run: baseline, winner, generations, candidates,
// requests, tokens, wall time, stop reason, then the candidates counted by outcome.
[[nodiscard]] std::string evolve_summary_text(const EvolveTarget& target,
                                              const EvolveResult& result);

// The run as JSON (stable keys): kernel, baseline, winner, every candidate's status and
// time, token/time/candidate counts, stop reason.
[[nodiscard]] std::string evolve_report_json(const EvolveTarget& target, const EvolveResult& result,
                                             const VariantFiles* winner_files);

}  // namespace kev::llm
