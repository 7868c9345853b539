// The two-stage prompts: what they hold, and that no secret reaches them.
#include "llm/prompts.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "scripted_server.h"

namespace kev::llm {
namespace {

class PromptsTest : public ::testing::Test {
 protected:
  EvolveTarget target;
  EvolveContext context;
  ChatPrompts prompts;
  void SetUp() override {
    target.kernel_id = "saxpy";
    target.names = {"src/saxpy.cu", "saxpy", "saxpy_naive"};
    target.source = test::read_text(std::string(KERNELEVO_FIXTURES) + "/evolve/saxpy.cu");
    target.spec_text = "id: saxpy\nkernel: saxpy\n";
    target.device = {"NVIDIA H200", "sm_90", 132, 60 << 20, 3912.4, 4230.0};
    context.target = &target;
    context.parent_source = target.source;
    context.parent_label = "original";
    context.baseline_us = 100.0;
    context.parent_us = 100.0;
    context.best_results = {"g1c1: 41.0 us (2.44x vs original), vec4/short"};
    context.ideas_tried = {"generation 1 ideas:\n1. float4 loads\noutcome: 1 passed"};
    context.last_failures = {"g1c2: compile_failed: saxpy.cu(41): error: expected an expression"};
    context.generation = 2;
    context.generations = 3;
    context.candidates = 4;
  }
};

TEST_F(PromptsTest, IdeasPromptHoldsEverythingTheModelNeeds) {
  const Prompt p = prompts.ideas_prompt(context);
  EXPECT_NE(p.system.find("frozen"), std::string::npos);
  for (const char* needle :
       {"Kernel `saxpy`", "Generation 2 of 3", "id: saxpy", "NVIDIA H200 (sm_90)", "132 SMs",
        "L2 cache: 60 MiB", "copy bandwidth: 3912 GB/s", "read bandwidth: 4230 GB/s",
        "original: 100.0 us", "g1c1: 41.0 us", "1. float4 loads",
        "g1c2: compile_failed: saxpy.cu(41)", "extern \"C\" __global__ void saxpy(",
        "Propose 4 distinct ideas", "no code"})
    EXPECT_NE(p.user.find(needle), std::string::npos) << needle;
  EXPECT_EQ(p.user.find("<<<<<<< SEARCH"), std::string::npos);  // stage 1 asks for words only
}

TEST_F(PromptsTest, ImplementationPromptAsksForOneIdeaInAParsableForm) {
  context.ideas = "1. float4\n2. fmaf\n";
  context.candidate = 2;
  const Prompt p = prompts.implementation_prompt(context);
  for (const char* needle : {"## Ideas\n1. float4\n2. fmaf\n", "Implement idea 2", "<<<<<<< SEARCH",
                             "=======", ">>>>>>> REPLACE", "```cuda", "definition of `saxpy`"})
    EXPECT_NE(p.user.find(needle), std::string::npos) << needle;
}

TEST_F(PromptsTest, UnknownDeviceIsSaidPlainly) {
  target.device = {};
  EXPECT_NE(prompts.ideas_prompt(context).user.find("## GPU\nunknown"), std::string::npos);
}

TEST_F(PromptsTest, NoSecretFromTheEnvironmentReachesAPrompt) {
  setenv("KERNELEVO_LLM_API_KEY", "sk-env-SECRET-1", 1);
  setenv("OPENAI_API_KEY", "sk-env-SECRET-2", 1);
  const Prompt a = prompts.ideas_prompt(context);
  context.ideas = "x";
  const Prompt b = prompts.implementation_prompt(context);
  for (const auto* p : {&a, &b})
    for (const auto* text : {&p->system, &p->user})
      EXPECT_EQ(text->find("sk-env-SECRET"), std::string::npos);
  unsetenv("KERNELEVO_LLM_API_KEY");
  unsetenv("OPENAI_API_KEY");
}

}  // namespace
}  // namespace kev::llm
