#include "llm/secret.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

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
    if (key.empty() && value != nullptr && *value) key = value;
  }
  // unsetenv only drops the pointers: the bytes of the initial environment stay where
  // /proc/<pid>/environ reads them, for any process of the same user. Overwrite them, in
  // every entry of either name (a name may appear twice).
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    for (const std::string_view name : {"KERNELEVO_LLM_API_KEY=", "OPENAI_API_KEY="}) {
      if (std::string_view(*entry).rfind(name, 0) != 0) continue;
      for (char* c = *entry + name.size(); *c != '\0'; ++c) *static_cast<volatile char*>(c) = '*';
    }
  }
  ::unsetenv("KERNELEVO_LLM_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  return Secret(std::move(key));
}

}  // namespace kev::llm
