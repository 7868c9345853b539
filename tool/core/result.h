#pragma once
// Errors as values below the CLI: every fallible function returns Result<T>;
// the CLI is the one place that prints them.
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace kev {

// Fixed process exit codes, documented in the README.
enum class ExitCode : int { ok = 0, failure = 1, usage = 2, environment = 3 };

struct SourceLocation {
  std::string file;
  int line = 0;                                 // 1-based; 0 = unknown
  int column = 0;                               // 1-based; 0 = unknown
  [[nodiscard]] std::string to_string() const;  // "file:line:col", omitting unknown parts
};

struct Error {
  std::string message;
  SourceLocation where;
  ExitCode code = ExitCode::usage;
  // "file:line:col: error: message" (or just the message when there is no location)
  [[nodiscard]] std::string to_string() const;
};

inline Error make_error(std::string message, SourceLocation where = {},
                        ExitCode code = ExitCode::usage) {
  return Error{std::move(message), std::move(where), code};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  [[nodiscard]] const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace kev
