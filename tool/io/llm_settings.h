#pragma once
// The `llm:` section of a project's kernelevo.yaml: where `kernelevo evolve` finds its
// endpoint and the client's limits. The API key never comes from here: a key written in
// the file is an error naming the file and line (the file is committed with the project).
//
//   llm:
//     base_url: http://localhost:8000/v1
//     model: Qwen/Qwen2.5-Coder-32B-Instruct
//     request_timeout: 10m      # seconds, or 90s / 5m / 1h
//     connect_timeout: 10
//     max_retries: 4
//     max_tokens: 8192
//     temperature: 0.2
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

// Every field is optional: what is absent keeps the value of the layer below (the
// client's defaults, see llm/chat_client.h).
struct LlmSettings {
  std::optional<std::string> base_url;
  std::optional<std::string> model;
  std::optional<double> request_timeout_s;
  std::optional<double> connect_timeout_s;
  std::optional<int> max_retries;
  std::optional<int> max_tokens;
  std::optional<double> temperature;
};

// The `llm:` section of kernelevo.yaml text (a file without one gives no settings).
// `file` names the file in errors.
[[nodiscard]] Result<LlmSettings> parse_llm_settings(std::string_view yaml,
                                                     const std::string& file);

// The same from a file; a missing file gives no settings.
[[nodiscard]] Result<LlmSettings> read_llm_settings(const std::filesystem::path& path);

}  // namespace kev
