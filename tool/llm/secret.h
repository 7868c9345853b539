#pragma once
// An API key: held in memory only. It has no stream operator or conversion to string, so it
// cannot end up in a message, a log or a file by accident; the one reader is the code that
// builds the HTTP Authorization header.
#include <string>

namespace kev::llm {

class Secret {
 public:
  Secret() = default;
  explicit Secret(std::string value) : value_(std::move(value)) {}
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  Secret(Secret&& other) noexcept : value_(std::move(other.value_)) { other.wipe(); }
  Secret& operator=(Secret&& other) noexcept {
    if (this != &other) {
      wipe();
      value_ = std::move(other.value_);
      other.wipe();
    }
    return *this;
  }
  ~Secret() { wipe(); }

  [[nodiscard]] bool empty() const { return value_.empty(); }
  [[nodiscard]] const std::string& reveal() const { return value_; }
  // `text` with every occurrence of the secret replaced by "[redacted]".
  [[nodiscard]] std::string redact(std::string text) const;

 private:
  void wipe() noexcept {
    for (auto& c : value_) *static_cast<volatile char*>(&c) = 0;
    value_.clear();
  }
  std::string value_;
};

// Reads KERNELEVO_LLM_API_KEY, else OPENAI_API_KEY, and removes both from this process's
// environment, so no child process (compiler, worker) can inherit them; their values are
// overwritten in place, so /proc/<pid>/environ no longer shows them either.
[[nodiscard]] Secret take_api_key_from_environment();

}  // namespace kev::llm
