#include "llm/secret.h"

#include <cstdlib>

namespace kev::llm {

std::string Secret::redact(std::string text) const {
  if (value_.empty()) return text;
  for (auto pos = text.find(value_); pos != std::string::npos; pos = text.find(value_, pos))
    text.replace(pos, value_.size(), "[redacted]");
  return text;
}

Secret take_api_key_from_environment() {
  std::string key;
  for (const char* name : {"KERNELEVO_LLM_API_KEY", "OPENAI_API_KEY"}) {
    const char* value = std::getenv(name);
    if (key.empty() && value && *value) key = value;
  }
  ::unsetenv("KERNELEVO_LLM_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  return Secret(std::move(key));
}

}  // namespace kev::llm
