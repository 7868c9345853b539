#pragma once
// A client for OpenAI-compatible chat-completions endpoints (OpenAI, vLLM, llama.cpp's
// server, Ollama...) on libcurl. Retries 429 and 5xx answers with exponential backoff,
// honouring Retry-After; totals the token usage the endpoint reports. The API key goes
// into the Authorization header and nowhere else; every error text is redacted.
#include <memory>
#include <string>

#include "core/proposer.h"
#include "core/result.h"
#include "io/llm_settings.h"
#include "llm/secret.h"

namespace kev::llm {

struct ChatConfig {
  std::string base_url;  // "https://api.openai.com/v1"; ".../chat/completions" is appended
  std::string model;
  double connect_timeout_s = 10.0;
  double timeout_s = 300.0;  // whole request, answer included
  int max_retries = 4;       // extra attempts after a 429, a 5xx or a dropped connection
  double initial_backoff_s = 1.0;
  double max_backoff_s = 60.0;  // also caps Retry-After
  double temperature = 0.7;     // negative: not sent
  int max_tokens = 0;           // 0: not sent
};

// KERNELEVO_LLM_URL and KERNELEVO_LLM_MODEL, when set, override the configured values.
void apply_environment(ChatConfig& config);
// The settings that are present override the configured values.
void apply_settings(ChatConfig& config, const LlmSettings& settings);
// The client's configuration, each layer overriding the one before: the defaults above,
// the project's kernelevo.yaml `llm:` section, the environment, the command line. (The key
// is not configuration: it comes from the environment only, see secret.h.)
[[nodiscard]] ChatConfig resolve_chat_config(const LlmSettings& project_file,
                                             const LlmSettings& command_line);

class ChatClient : public Proposer {
 public:
  // Usage errors when the URL or model is missing or the URL is not http(s).
  static Result<std::unique_ptr<ChatClient>> create(ChatConfig config, Secret api_key);
  ~ChatClient() override;
  ChatClient(const ChatClient&) = delete;
  ChatClient& operator=(const ChatClient&) = delete;

  Result<Proposal> propose(const Prompt& prompt) override;

  [[nodiscard]] const TokenUsage& total_usage() const { return usage_; }
  [[nodiscard]] int requests() const { return requests_; }  // HTTP requests, retries included
  [[nodiscard]] int retries() const { return retries_; }
  // The chat-completions URL without any user:password part, query values redacted.
  [[nodiscard]] std::string endpoint() const;

 private:
  ChatClient(ChatConfig config, Secret api_key);
  ChatConfig config_;
  Secret api_key_;
  std::string url_;        // what is requested: the query kept
  std::string shown_url_;  // what messages show: no credentials, query values redacted
  TokenUsage usage_;
  int requests_ = 0;
  int retries_ = 0;
};

}  // namespace kev::llm
