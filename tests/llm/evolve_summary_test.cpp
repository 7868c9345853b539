// The summary `kernelevo evolve` prints after a run.
#include <gtest/gtest.h>

#include "llm/evolve_output.h"

namespace kev::llm {
namespace {

EvolveResult finished_run(double seconds) {
  EvolveResult r;
  r.baseline.outcome.disposition = Disposition::passed;
  r.baseline.outcome.time_us = 597.968012;
  CandidateRecord c;
  c.label = "g1c1";
  c.fate = CandidateFate::evaluated;
  c.measurement.outcome.disposition = Disposition::passed;
  c.measurement.outcome.time_us = 126.32;
  r.candidates.push_back(c);
  r.winner = 0;
  r.summary.generations_run = 1;
  r.summary.requests = 4;
  r.summary.tokens.prompt_tokens = 6000;
  r.summary.tokens.completion_tokens = 1600;
  r.summary.seconds = seconds;
  r.summary.counts = {{"passed", 1}};
  r.summary.stop_reason = "generations";
  return r;
}

TEST(EvolveSummary, ASubSecondRunShowsItsWallTime) {
  EvolveTarget target;
  target.kernel_id = "chunked_scale";
  // The H200 demonstration's run: 0.62 s of wall time, printed as "0 s" before.
  EXPECT_EQ(evolve_summary_text(target, finished_run(0.6226074470000071)),
            "chunked_scale: baseline 598.0 us; winner g1c1 126.3 us (4.73x)\n"
            "  generations 1, candidates 1, requests 4, tokens 7600 (6000 prompt, 1600 "
            "completion), 0.6 s, stopped by generations\n"
            "  candidates: passed 1\n");
}

TEST(EvolveSummary, LongRunsAndNoWinner) {
  EvolveTarget target;
  target.kernel_id = "k";
  EvolveResult r = finished_run(187.2);
  r.winner.reset();
  const std::string text = evolve_summary_text(target, r);
  EXPECT_NE(text.find("k: baseline 598.0 us; no variant beat the original\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(", 3 min 7 s, stopped by generations"), std::string::npos) << text;
}

}  // namespace
}  // namespace kev::llm
