// The evolution loop with a fake model, fake prompts and a fake GPU.
#include "core/evolve.h"

#include <gtest/gtest.h>

#include <deque>
#include <fstream>
#include <sstream>

namespace kev {
namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(KERNELEVO_FIXTURES) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Answers from a list; an empty optional is a failed request.
class FakeProposer : public Proposer {
 public:
  std::deque<Result<Proposal>> answers;
  std::vector<Prompt> prompts;
  Result<Proposal> propose(const Prompt& prompt) override {
    prompts.push_back(prompt);
    if (answers.empty()) return make_error("script exhausted", {}, ExitCode::environment);
    auto a = std::move(answers.front());
    answers.pop_front();
    return a;
  }
  void say(std::string text, std::int64_t tokens = 10) {
    answers.push_back(Proposal{std::move(text), TokenUsage{tokens, tokens}});
  }
  void fail(std::string message, ExitCode code = ExitCode::environment) {
    answers.push_back(make_error(std::move(message), {}, code));
  }
};

// Records the contexts it was asked to render.
class RecordingPrompts : public PromptBuilder {
 public:
  mutable std::vector<EvolveContext> ideas;
  mutable std::vector<EvolveContext> implementations;
  Prompt ideas_prompt(const EvolveContext& c) const override {
    ideas.push_back(c);
    return {"system", "ideas for " + c.parent_label};
  }
  Prompt implementation_prompt(const EvolveContext& c) const override {
    implementations.push_back(c);
    return {"system", "implement " + std::to_string(c.candidate)};
  }
};

// Decides by markers in the source what a GPU would have found.
class FakeEvaluator : public VariantEvaluator {
 public:
  int calls = 0;
  VariantMeasurement evaluate(const std::string& source) override {
    ++calls;
    VariantMeasurement m;
    if (source.find("leaky log") != std::string::npos) {
      m.outcome.disposition = Disposition::compile_failed;
      m.outcome.detail = "saxpy.cu(40): error: GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ\n" +
                         std::string(5000, 'x');
    } else if (source.find("syntax error here") != std::string::npos) {
      m.outcome.disposition = Disposition::compile_failed;
      m.outcome.detail = "saxpy.cu(40): error: identifier \"syntax\" is undefined";
    } else if (source.find("static int launches") != std::string::npos) {
      m.outcome.disposition = Disposition::incorrect;
      m.outcome.detail = "verification after timing: 16777216 of 16777216 outputs still poisoned";
    } else if (source.find("float4") != std::string::npos) {
      m.outcome.disposition = Disposition::passed;
      m.outcome.time_us = 50.0;
      m.params = {{"SAXPY_BLOCK", Value(256)}};
    } else if (source.find("fmaf") != std::string::npos) {
      m.outcome.disposition = Disposition::passed;
      m.outcome.time_us = 99.5;  // not enough faster to win
    } else {
      m.outcome.disposition = Disposition::passed;
      m.outcome.time_us = 100.0;
    }
    return m;
  }
};

constexpr const char* kFast = R"(```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    const float4 xv = reinterpret_cast<const float4*>(x)[i];
    const float4 yv = reinterpret_cast<const float4*>(y)[i];
    reinterpret_cast<float4*>(out)[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
  }
}
```)";
constexpr const char* kBroken = R"(```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  syntax error here
}
```)";
constexpr const char* kSlightlyFaster = R"(```cuda
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(a, x[i], y[i]);
}
```)";

class EvolveTest : public ::testing::Test {
 protected:
  EvolveTarget target;
  FakeProposer model;
  RecordingPrompts prompts;
  FakeEvaluator gpu;
  EvolveOptions options;
  void SetUp() override {
    target.kernel_id = "saxpy";
    target.names = {"saxpy.cu", "saxpy", "saxpy_naive"};
    target.source = read_fixture("evolve/saxpy.cu");
    ASSERT_FALSE(target.source.empty());
    options.budget.generations = 2;
    options.budget.candidates = 3;
  }
};

TEST_F(EvolveTest, KeepsOnlyTheVerifiedFasterVariantAndFeedsFailuresBack) {
  model.say("1. float4 loads\n2. unroll\n3. fma");
  model.say(kFast, 100);
  model.say(kBroken);
  model.say("Use vectorised loads; that should help a lot.");  // prose, no code
  model.say("more ideas");
  model.say("```cuda\n#include \"/proc/self/environ\"\n" + std::string(kFast).substr(8));
  model.say(kSlightlyFaster);
  model.fail("no answer from the LLM endpoint within the timeout");

  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->candidates.size(), 6u);
  EXPECT_EQ(r->candidates[0].status(), "passed");
  EXPECT_EQ(r->candidates[1].status(), "compile_failed");
  EXPECT_EQ(r->candidates[2].status(), "no_code");
  EXPECT_EQ(r->candidates[3].status(), "rejected");
  EXPECT_NE(r->candidates[3].reason.find("/proc/self/environ"), std::string::npos);
  EXPECT_EQ(r->candidates[4].status(), "passed");
  EXPECT_EQ(r->candidates[5].status(), "no_response");
  ASSERT_TRUE(r->winner.has_value());
  EXPECT_EQ(r->candidates[*r->winner].label, "g1c1");
  EXPECT_EQ(*r->candidates[*r->winner].measurement.outcome.time_us, 50.0);
  // Only built candidates reached the GPU: the original and three variants.
  EXPECT_EQ(gpu.calls, 4);

  // Generation 2 was told what went wrong in generation 1, and what was tried.
  ASSERT_EQ(prompts.ideas.size(), 2u);
  const auto& second = prompts.ideas[1];
  ASSERT_EQ(second.last_failures.size(), 2u);
  EXPECT_NE(second.last_failures[0].find("g1c2: compile_failed: saxpy.cu(40): error"),
            std::string::npos);
  EXPECT_NE(second.last_failures[1].find("g1c3: no code in response"), std::string::npos);
  ASSERT_EQ(second.ideas_tried.size(), 1u);
  EXPECT_NE(second.ideas_tried[0].find("float4 loads"), std::string::npos);
  EXPECT_NE(second.ideas_tried[0].find("1 passed"), std::string::npos);
  EXPECT_EQ(second.best_results.size(), 2u);  // two feature bins: scalar original, vec4 variant
  EXPECT_EQ(second.baseline_us, 100.0);
  // Implementation prompts carry the ideas and the candidate number.
  EXPECT_EQ(prompts.implementations[0].ideas, "1. float4 loads\n2. unroll\n3. fma");
  EXPECT_EQ(prompts.implementations[2].candidate, 3);

  const auto& s = r->summary;
  EXPECT_EQ(s.generations_run, 2);
  EXPECT_EQ(s.requests, 8);
  EXPECT_EQ(s.tokens.total(), 2 * (10 * 6 + 100));
  EXPECT_EQ(s.counts.at("passed"), 2);
  EXPECT_EQ(s.counts.at("compile_failed"), 1);
  EXPECT_EQ(s.counts.at("no_code"), 1);
  EXPECT_EQ(s.counts.at("rejected"), 1);
  EXPECT_EQ(s.counts.at("no_response"), 1);
  EXPECT_EQ(s.stop_reason, "generations");
}

TEST_F(EvolveTest, ACheatingVariantNeverWins) {
  options.budget.generations = 1;
  options.budget.candidates = 1;
  model.say("1. skip repeated work");
  model.say(std::string(kFast).replace(std::string(kFast).find("const int i"), 0,
                                       "static int launches = 0;\n  "));
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->candidates[0].status(), "incorrect");
  EXPECT_FALSE(r->winner.has_value());
}

TEST_F(EvolveTest, TokenBudgetStopsBeforeTheNextRequest) {
  options.budget.token_budget = 50;
  model.say("ideas", 20);  // 40 tokens
  model.say(kBroken, 20);  // 80 tokens: over budget after this one
  model.say(kFast);
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summary.requests, 2);
  EXPECT_EQ(r->summary.stop_reason, "token budget");
  EXPECT_EQ(r->candidates.size(), 1u);
}

TEST_F(EvolveTest, TimeBudgetUsesTheClock) {
  double now = 0.0;
  options.clock = [&] { return now += 10.0; };
  options.budget.wall_seconds = 35.0;
  for (int i = 0; i < 10; ++i) model.say(kBroken);
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summary.stop_reason, "time budget");
  EXPECT_LT(r->summary.requests, 4);
}

TEST_F(EvolveTest, AnUnreachableEndpointIsAnErrorRightAway) {
  model.fail("cannot reach the LLM endpoint http://127.0.0.1:9/v1/chat/completions");
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::environment);
  EXPECT_EQ(model.prompts.size(), 1u);
}

TEST_F(EvolveTest, RepeatedFailuresAfterAnswersEndTheRunWithResults) {
  model.say("ideas");
  model.say(kFast);
  for (int i = 0; i < 5; ++i) model.fail("HTTP 500 after 5 attempts");
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summary.stop_reason, "endpoint failing");
  EXPECT_EQ(r->summary.requests, 2 + options.max_consecutive_proposer_failures);
  EXPECT_TRUE(r->winner.has_value());
}

TEST_F(EvolveTest, AnOriginalThatFailsIsAnError) {
  target.source += "\n// syntax error here\n";
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not pass (compile_failed)"), std::string::npos);
  EXPECT_TRUE(model.prompts.empty());
}

TEST_F(EvolveTest, DryRunPromptsNeedNoModel) {
  const auto p = first_generation_prompts(target, prompts, options);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].user, "ideas for original");
  EXPECT_EQ(p[1].user, "implement 1");
  EXPECT_TRUE(model.prompts.empty());
}

}  // namespace
}  // namespace kev

#include "core/variant_archive.h"

namespace kev {
namespace {

TEST(VariantArchive, KeepsTheFastestPerBinAndSelectsBestOrElites) {
  EXPECT_EQ(VariantArchive::feature_of("float x = a[i];"), "scalar/short");
  EXPECT_EQ(VariantArchive::feature_of("float2 v; float4 w;"), "vec4/short");
  EXPECT_EQ(VariantArchive::feature_of(std::string(2000, ' ') + "__half2 h;"), "vec2/medium");
  VariantArchive archive;
  EXPECT_TRUE(archive.add({"original", "o", 100.0, "scalar/short"}));
  EXPECT_FALSE(archive.add({"g1c1", "a", 120.0, "scalar/short"}));  // slower in the same bin
  EXPECT_TRUE(archive.add({"g1c2", "b", 90.0, "scalar/short"}));    // replaces the bin's elite
  EXPECT_TRUE(archive.add({"g1c3", "c", 95.0, "vec4/short"}));
  ASSERT_NE(archive.best(), nullptr);
  EXPECT_EQ(archive.best()->label, "g1c2");
  const auto elites = archive.elites();
  ASSERT_EQ(elites.size(), 2u);
  EXPECT_EQ(elites[1]->label, "g1c3");
  std::mt19937_64 rng(7);
  int best = 0;
  for (int i = 0; i < 1000; ++i) best += archive.select_parent(rng).label == "g1c2";
  EXPECT_GT(best, 650);  // half the time the best, plus half of the uniform picks
  EXPECT_LT(best, 850);
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

TEST_F(EvolveTest, ACompileLogReachesTheModelAndTheRecordScrubbedAndBounded) {
  options.budget.generations = 2;
  options.budget.candidates = 1;
  model.say("ideas");
  model.say(
      "```cuda\nextern \"C\" __global__ void saxpy(const float* x, const float* y, float* "
      "out, float a, int n) {\n  // leaky log\n}\n```");
  model.say("more ideas");
  model.say(kSlightlyFaster);
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->candidates[0].status(), "compile_failed");
  const std::string& kept = r->candidates[0].measurement.outcome.detail;
  EXPECT_EQ(kept.find("ghp_0123456789"), std::string::npos) << kept;
  EXPECT_NE(kept.find("GITHUB_TOKEN=[redacted]"), std::string::npos) << kept;
  ASSERT_EQ(prompts.ideas.size(), 2u);
  ASSERT_EQ(prompts.ideas[1].last_failures.size(), 1u);
  const std::string& told = prompts.ideas[1].last_failures[0];
  EXPECT_EQ(told.find("ghp_0123456789"), std::string::npos) << told;
  EXPECT_LT(told.size(), options.max_feedback_chars + 200);
}

}  // namespace
}  // namespace kev

namespace kev {
namespace {

TEST_F(EvolveTest, IdeasKeptForLaterPromptsHoldTheAnswerNotTheReasoning) {
  options.budget.generations = 2;
  options.budget.candidates = 1;
  model.say("<think>Let me consider shared memory, no, registers...</think>\n1. float4 loads");
  model.say(kSlightlyFaster);
  model.say("more ideas");
  model.say(kSlightlyFaster);
  auto r = evolve(target, model, prompts, gpu, options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(prompts.implementations.size(), 2u);
  EXPECT_EQ(prompts.implementations[0].ideas, "1. float4 loads");
  ASSERT_EQ(prompts.ideas[1].ideas_tried.size(), 1u);
  EXPECT_EQ(prompts.ideas[1].ideas_tried[0].find("shared memory"), std::string::npos);
  EXPECT_NE(prompts.ideas[1].ideas_tried[0].find("float4 loads"), std::string::npos);
}

}  // namespace
}  // namespace kev
