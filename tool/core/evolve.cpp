#include "core/evolve.h"

#include <chrono>
#include <cstdio>
#include <random>

#include "core/candidate_builder.h"
#include "core/response_parser.h"
#include "core/secret_shapes.h"
#include "core/time_text.h"
#include "core/variant_archive.h"

namespace kev {

namespace {

constexpr std::size_t kMaxDetailChars = 64 * 1024;  // a candidate's detail kept for the report

std::string truncate(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars)) + "\n[... " +
         std::to_string(text.size() - max_chars) + " more characters]";
}

std::string format_ratio(double ratio) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fx", ratio);
  return buf;
}

std::string kernel_code(const EvolveTarget& target, const std::string& source) {
  auto regions = locate_kernel_regions(source, target.names);
  if (!regions) return source;
  return source.substr(regions->editable.begin, regions->editable.end - regions->editable.begin);
}

bool beats(const Outcome& challenger, const Outcome& baseline, double min_speedup) {
  if (!challenger.passed() || !challenger.time_us || !baseline.time_us) return false;
  if (*baseline.time_us / *challenger.time_us < min_speedup) return false;
  if (challenger.ci_high_us && baseline.ci_low_us && *challenger.ci_high_us >= *baseline.ci_low_us)
    return false;
  return true;
}

}  // namespace

std::string CandidateRecord::status() const {
  switch (fate) {
    case CandidateFate::evaluated:
      return to_string(measurement.outcome.disposition);
    case CandidateFate::no_code:
      return "no_code";
    case CandidateFate::rejected:
      return "rejected";
    case CandidateFate::no_response:
      return "no_response";
  }
  return "no_response";
}

std::vector<Prompt> first_generation_prompts(const EvolveTarget& target,
                                             const PromptBuilder& prompts,
                                             const EvolveOptions& options) {
  EvolveContext context;
  context.target = &target;
  context.parent_source = target.source;
  context.parent_label = "original";
  context.generations = options.budget.generations;
  context.candidates = options.budget.candidates;
  std::vector<Prompt> out{prompts.ideas_prompt(context)};
  context.ideas = "<the ideas the model answered to the first prompt>";
  out.push_back(prompts.implementation_prompt(context));
  return out;
}

Result<EvolveResult> evolve(const EvolveTarget& target, Proposer& proposer,
                            const PromptBuilder& prompts, VariantEvaluator& evaluator,
                            const EvolveOptions& options) {
  const auto clock = options.clock ? options.clock : [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  const double start = clock();
  if (auto regions = locate_kernel_regions(target.source, target.names); !regions)
    return regions.error();

  EvolveResult result;
  say("measuring the original " + target.kernel_id);
  result.baseline = evaluator.evaluate(target.source);
  const Outcome& base = result.baseline.outcome;
  if (!base.passed() || !base.time_us)
    return make_error("the original kernel `" + target.kernel_id + "` does not pass (" +
                          to_string(base.disposition) + "): " + scrubbed_excerpt(base.detail, 400),
                      SourceLocation{target.names.file, 0, 0}, ExitCode::failure);
  const double baseline_us = *base.time_us;

  VariantArchive archive;
  archive.add({"original", target.source, baseline_us,
               VariantArchive::feature_of(kernel_code(target, target.source))});
  std::mt19937_64 rng(options.seed);
  auto& summary = result.summary;
  std::vector<std::string> ideas_tried;
  std::vector<std::string> failures;
  int consecutive_failures = 0;
  bool any_answer = false;
  std::optional<Error> fatal;

  const auto over_budget = [&]() -> std::string {
    if (options.budget.token_budget > 0 && summary.tokens.total() >= options.budget.token_budget)
      return "token budget";
    if (options.budget.wall_seconds > 0 && clock() - start >= options.budget.wall_seconds)
      return "time budget";
    return {};
  };
  // One request; returns nullopt on failure and decides whether the run must stop.
  const auto ask = [&](const Prompt& prompt, std::string* failure) -> std::optional<Proposal> {
    ++summary.requests;
    auto answer = proposer.propose(prompt);
    if (answer) {
      summary.tokens += answer->usage;
      consecutive_failures = 0;
      any_answer = true;
      return std::move(answer.value());
    }
    *failure = answer.error().to_string();
    ++consecutive_failures;
    const bool unreachable_at_start = !any_answer && answer.error().code == ExitCode::environment;
    if (unreachable_at_start || consecutive_failures >= options.max_consecutive_proposer_failures)
      fatal = answer.error();
    return std::nullopt;
  };

  for (int g = 1; g <= options.budget.generations && !fatal; ++g) {
    if (summary.stop_reason = over_budget(); !summary.stop_reason.empty()) break;
    // A copy: adding this generation's variants may replace the parent's bin in the archive.
    const ArchiveEntry parent = archive.select_parent(rng);
    EvolveContext context;
    context.target = &target;
    context.parent_source = parent.source;
    context.parent_label = parent.label;
    context.baseline_us = baseline_us;
    context.parent_us = parent.time_us;
    for (const auto* elite : archive.elites())
      context.best_results.push_back(elite->label + ": " + format_time_us(elite->time_us) + " (" +
                                     format_ratio(baseline_us / elite->time_us) +
                                     " vs original), " + elite->feature);
    context.ideas_tried = ideas_tried;
    context.last_failures = failures;
    context.generation = g;
    context.generations = options.budget.generations;
    context.candidates = options.budget.candidates;

    say("generation " + std::to_string(g) + ": asking for ideas (parent " + parent.label + ")");
    std::string failure;
    auto ideas = ask(prompts.ideas_prompt(context), &failure);
    if (fatal) break;
    // Only the answer is kept for later prompts, not the model's reasoning before it.
    if (ideas) ideas->text = strip_reasoning(ideas->text);
    context.ideas = ideas ? ideas->text : "(no ideas: the request failed: " + failure + ")";

    std::vector<std::string> new_failures;
    std::map<std::string, int> generation_counts;
    for (int c = 1; c <= options.budget.candidates; ++c) {
      if (summary.stop_reason = over_budget(); !summary.stop_reason.empty()) break;
      context.candidate = c;
      CandidateRecord record;
      record.generation = g;
      record.index = c;
      record.label = "g" + std::to_string(g) + "c" + std::to_string(c);
      record.parent_label = parent.label;
      auto answer = ask(prompts.implementation_prompt(context), &failure);
      if (!answer) {
        record.fate = CandidateFate::no_response;
        record.reason = failure;
      } else {
        record.usage = answer->usage;
        const ParsedResponse parsed = parse_response(strip_reasoning(answer->text));
        if (!parsed.has_code()) {
          record.fate = CandidateFate::no_code;
          record.reason = "no code in response";
          new_failures.push_back(record.label +
                                 ": no code in response (answer with SEARCH/REPLACE blocks or "
                                 "one fenced code block)");
        } else if (auto built = build_candidate(parent.source, target.source, parsed, target.names,
                                                target.includes);
                   !built) {
          record.fate = CandidateFate::rejected;
          record.reason = built.error().to_string();
          new_failures.push_back(record.label + ": refused before compiling: " + record.reason);
        } else {
          record.fate = CandidateFate::evaluated;
          record.kind = to_string(built->kind);
          record.source = std::move(built->source);
          record.measurement = evaluator.evaluate(record.source);
          // A compile log or mismatch goes to the model and into the report: no secret
          // shapes, and bounded.
          record.measurement.outcome.detail =
              scrubbed_excerpt(record.measurement.outcome.detail, kMaxDetailChars);
          const Outcome& o = record.measurement.outcome;
          if (o.passed() && o.time_us) {
            archive.add({record.label, record.source, *o.time_us,
                         VariantArchive::feature_of(kernel_code(target, record.source))});
          } else {
            new_failures.push_back(record.label + ": " + to_string(o.disposition) + ": " +
                                   scrubbed_excerpt(o.detail, options.max_feedback_chars));
          }
        }
      }
      std::string line = "  " + record.label + ": " + record.status();
      if (record.fate == CandidateFate::evaluated && record.measurement.outcome.time_us)
        line += " " + format_time_us(*record.measurement.outcome.time_us) + " (" +
                format_ratio(baseline_us / *record.measurement.outcome.time_us) + ")";
      else if (!record.reason.empty())
        line += ": " + truncate(record.reason, 200);
      say(line);
      ++summary.counts[record.status()];
      ++generation_counts[record.status()];
      result.candidates.push_back(std::move(record));
      if (fatal) break;
    }
    if (ideas) {
      std::string outcome;
      for (const auto& [status, n] : generation_counts)
        outcome += (outcome.empty() ? "" : ", ") + std::to_string(n) + " " + status;
      ideas_tried.push_back("generation " + std::to_string(g) + " ideas:\n" +
                            truncate(ideas->text, 800) +
                            "\noutcome: " + (outcome.empty() ? "nothing tried" : outcome));
    }
    failures = std::move(new_failures);
    summary.generations_run = g;
    if (!summary.stop_reason.empty()) break;
  }

  summary.seconds = clock() - start;
  if (fatal) {
    summary.stop_reason = "endpoint failing";
    if (!any_answer) return *fatal;
  }
  if (summary.stop_reason.empty()) summary.stop_reason = "generations";

  for (std::size_t i = 0; i < result.candidates.size(); ++i) {
    const Outcome& o = result.candidates[i].measurement.outcome;
    if (result.candidates[i].fate != CandidateFate::evaluated ||
        !beats(o, base, options.min_speedup))
      continue;
    if (!result.winner ||
        *o.time_us < *result.candidates[*result.winner].measurement.outcome.time_us)
      result.winner = i;
  }
  return result;
}

}  // namespace kev
