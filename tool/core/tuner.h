#pragma once
// The tuning loop: a strategy proposes, an evaluator measures, until the budget (evaluations
// and/or wall time) is spent or the space is exhausted. CPU-pure: the GPU and the replay
// backends plug in as Evaluators; traces and progress plug in as the observer.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/evaluator.h"
#include "core/strategy.h"

namespace kev {

struct Evaluation {
  Point point;
  Outcome outcome;
  double elapsed_s = 0;  // since the start of the tune (for prior evaluations: as recorded)
  std::size_t worker =
      0;  // which evaluator measured it (0: `evaluator`, i: `more_evaluators[i-1]`)
};

struct TuneBudget {
  std::optional<std::uint64_t> evaluations;  // total, prior evaluations included
  std::optional<std::chrono::duration<double>> wall;
};

struct TuneRequest {
  const SearchSpace* space = nullptr;
  Strategy* strategy = nullptr;
  Evaluator* evaluator = nullptr;
  // Further evaluators of the same space (one per extra GPU). With any, each evaluator runs
  // on its own thread and takes the next proposal; strategy, budget and observer calls are
  // serialised, so the strategy may see a proposal's outcome only after later proposals
  // (as with lookahead). Evaluators must not share mutable state unless it is thread-safe.
  std::vector<Evaluator*> more_evaluators;
  TuneBudget budget;
  std::vector<Evaluation> prior;  // from a resumed trace: told to the strategy, never repeated
  // Points evaluated before the strategy's first proposals (the winners of neighbouring
  // buckets, say): those valid in the space and not in `prior`, in order, within the budget.
  // Told to the strategy as its own; a proposal of one is not evaluated again.
  std::vector<Point> seeds;
  // How many proposals to hand to Evaluator::prefetch ahead of the one being evaluated.
  // 0 keeps the search strictly sequential (each proposal sees every earlier outcome).
  std::size_t lookahead = 0;
  // Called after each new evaluation completes (index counts prior evaluations), one call at
  // a time, on the thread of the evaluator that measured it.
  std::function<void(const Evaluation&, std::size_t index, const Evaluation* best)> observer;
};

struct TuneResult {
  std::optional<Evaluation> best;  // fastest passed evaluation
  std::uint64_t evaluations = 0;   // prior + new
  std::uint64_t new_evaluations = 0;
  std::map<Disposition, std::uint64_t> counts;
  std::vector<Evaluation> history;  // prior then new, in completion order
  bool exhausted = false;           // the strategy ran out of points
  bool out_of_time = false;
  double elapsed_s = 0;
};

TuneResult run_tuner(TuneRequest request);

// Parses "90s", "5m", "1h", "250ms" or a bare number of seconds.
Result<std::chrono::duration<double>> parse_duration(std::string_view text);

}  // namespace kev
