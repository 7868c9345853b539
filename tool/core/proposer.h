#pragma once
// The seam between the evolution loop (core) and a language model (the llm layer's
// chat-completions client). Fakes of it make the loop testable without a network.
#include <cstdint>
#include <string>

#include "core/result.h"

namespace kev {

// One request to the model: a system message and a user message.
struct Prompt {
  std::string system;
  std::string user;
};

struct TokenUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  [[nodiscard]] std::int64_t total() const { return prompt_tokens + completion_tokens; }
  TokenUsage& operator+=(const TokenUsage& other) {
    prompt_tokens += other.prompt_tokens;
    completion_tokens += other.completion_tokens;
    return *this;
  }
};

// What the model answered: untrusted text, plus what it cost.
struct Proposal {
  std::string text;
  TokenUsage usage;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  // One completion. Errors (unreachable endpoint, timeout, an answer that is not the
  // protocol) are values; ExitCode::environment marks those that no retry will fix.
  virtual Result<Proposal> propose(const Prompt& prompt) = 0;
};

}  // namespace kev
