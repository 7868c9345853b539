#pragma once
// The evolution loop (DESIGN.md section 6): an archive of source variants; each generation
// asks the model for optimisation ideas in plain words, then for implementations; every
// candidate is checked (frozen parts, includes) and then compiled, verified and timed by a
// VariantEvaluator. Compile errors and verification failures go back into the next prompt.
// Pure C++: the model (Proposer), the prompts (PromptBuilder) and the GPU (VariantEvaluator)
// are interfaces, so the loop is tested with fakes.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evaluation.h"
#include "core/kernel_regions.h"
#include "core/proposer.h"
#include "core/result.h"
#include "core/source_safety.h"

namespace kev {

// What the prompts say about the GPU. Zero / empty = unknown.
struct DeviceFacts {
  std::string name;
  std::string arch;
  int sms = 0;
  std::int64_t l2_bytes = 0;
  double copy_gbps = 0.0;
  double read_gbps = 0.0;
};

struct VariantMeasurement {
  Outcome outcome;
  ParamSet params;  // the best point of the variant's own parameter search, if it had one
};

class VariantEvaluator {
 public:
  virtual ~VariantEvaluator() = default;
  // Compiles, verifies and times a full text of the kernel's source file (running a short
  // parameter search of its own where the variant keeps the marked parameters). Never
  // throws; failures are dispositions with the compiler log or mismatch in `detail`.
  virtual VariantMeasurement evaluate(const std::string& source_text) = 0;
};

// The kernel being evolved.
struct EvolveTarget {
  std::string kernel_id;
  KernelNames names;      // file, entry, reference
  std::string source;     // the original file's text
  std::string spec_text;  // the @kernelevo block (or the spec as YAML), shown to the model
  DeviceFacts device;
  // Which new includes a candidate may have (null: only the original's, and relative paths
  // that pass the fixed rules of source_safety.h). Must outlive the evolve() call.
  const IncludePolicy* includes = nullptr;
};

// Everything a prompt may use. Nothing secret is ever put here.
struct EvolveContext {
  const EvolveTarget* target = nullptr;
  std::string parent_source;  // the variant the model is asked to improve
  std::string parent_label;   // "original" or "g1c2"
  std::optional<double> baseline_us;
  std::optional<double> parent_us;
  std::vector<std::string> best_results;   // "g1c2: 81.2 us (1.23x), rewrite"
  std::vector<std::string> ideas_tried;    // earlier ideas answers, with what came of them
  std::vector<std::string> last_failures;  // compile errors, verification failures, refusals
  int generation = 1;                      // 1-based
  int generations = 1;
  std::string ideas;  // stage-1 answer (implementation prompts only)
  int candidate = 1;  // 1-based index within the generation (implementation prompts only)
  int candidates = 1;
};

class PromptBuilder {
 public:
  virtual ~PromptBuilder() = default;
  [[nodiscard]] virtual Prompt ideas_prompt(const EvolveContext& context) const = 0;
  [[nodiscard]] virtual Prompt implementation_prompt(const EvolveContext& context) const = 0;
};

struct EvolveBudget {
  int generations = 3;
  int candidates = 4;             // implementations per generation
  std::int64_t token_budget = 0;  // 0 = unlimited; checked before every request
  double wall_seconds = 0.0;      // 0 = unlimited; checked before every request
};

struct EvolveOptions {
  EvolveBudget budget;
  std::uint64_t seed = 1;
  // A winner must be at least this much faster than the original (time ratio), and its
  // confidence interval must lie below the original's when both are known.
  double min_speedup = 1.02;
  int max_consecutive_proposer_failures = 3;
  std::size_t max_feedback_chars = 1500;  // per compile log / mismatch shown to the model
  std::function<double()> clock;          // seconds; default: steady_clock
  std::function<void(const std::string&)> progress;  // human progress lines
};

enum class CandidateFate {
  evaluated,    // compiled/verified/timed: see outcome.disposition
  no_code,      // the answer held no code
  rejected,     // refused before compiling (frozen part changed, unsafe include...)
  no_response,  // the request failed (timeout, protocol error...)
};

struct CandidateRecord {
  int generation = 0;
  int index = 0;      // within the generation, 1-based
  std::string label;  // "g1c2"
  std::string parent_label;
  CandidateFate fate = CandidateFate::no_response;
  std::string kind;                // "edits", "rewrite", "whole_file" (built candidates)
  std::string reason;              // why rejected / no response
  VariantMeasurement measurement;  // evaluated only
  std::string source;              // built candidates only
  TokenUsage usage;
  // "passed", "compile_failed", ... for evaluated ones; else "no_code", "rejected", "no_response".
  [[nodiscard]] std::string status() const;
};

struct EvolveSummary {
  int generations_run = 0;
  int requests = 0;
  TokenUsage tokens;
  double seconds = 0.0;
  std::map<std::string, int> counts;  // CandidateRecord::status() -> count
  std::string stop_reason;  // "generations", "token budget", "time budget", "endpoint failing"
};

struct EvolveResult {
  VariantMeasurement baseline;
  std::vector<CandidateRecord> candidates;
  std::optional<std::size_t> winner;  // index into candidates: the fastest verified variant
                                      // that beats the original by min_speedup
  EvolveSummary summary;
};

// Errors: the original fails to evaluate (nothing to compare with), or the endpoint failed
// repeatedly before any answer came. Budgets end the loop normally.
[[nodiscard]] Result<EvolveResult> evolve(const EvolveTarget& target, Proposer& proposer,
                                          const PromptBuilder& prompts, VariantEvaluator& evaluator,
                                          const EvolveOptions& options);

// The prompts of generation 1 for --dry-run: the ideas prompt and the first implementation
// prompt (with a placeholder where the model's ideas would go).
[[nodiscard]] std::vector<Prompt> first_generation_prompts(const EvolveTarget& target,
                                                           const PromptBuilder& prompts,
                                                           const EvolveOptions& options);

}  // namespace kev
