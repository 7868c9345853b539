#pragma once
// The two-stage prompts of `kernelevo evolve`: first optimisation ideas in plain words,
// then an implementation of one idea as SEARCH/REPLACE edits or one fenced rewrite.
// Built only from the source, the spec, device facts and results: never from the
// environment, so no secret can reach the model.
#include "core/evolve.h"

namespace kev::llm {

class ChatPrompts : public PromptBuilder {
 public:
  [[nodiscard]] Prompt ideas_prompt(const EvolveContext& context) const override;
  [[nodiscard]] Prompt implementation_prompt(const EvolveContext& context) const override;
};

}  // namespace kev::llm
