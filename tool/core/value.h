#pragma once
// A tuning-parameter value: what a spec lists and what reaches the kernel as a macro.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace kev {

class Value {
 public:
  Value() = default;
  Value(std::int64_t i) : v_(i) {}            // NOLINT(google-explicit-constructor)
  Value(int i) : v_(std::int64_t{i}) {}       // NOLINT(google-explicit-constructor)
  Value(double d) : v_(d) {}                  // NOLINT(google-explicit-constructor)
  Value(std::string s) : v_(std::move(s)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool is_int() const { return v_.index() == 0; }
  [[nodiscard]] bool is_double() const { return v_.index() == 1; }
  [[nodiscard]] bool is_string() const { return v_.index() == 2; }
  [[nodiscard]] std::optional<std::int64_t> as_int() const {
    if (is_int()) return std::get<0>(v_);
    return std::nullopt;
  }
  [[nodiscard]] double as_double() const;  // ints widen; strings give NaN
  [[nodiscard]] const std::string& as_string() const { return std::get<2>(v_); }
  // The text used as macro value, in lockfiles and in keys ("256", "0.5", "float4").
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const Value&, const Value&) = default;
  friend struct ValueHash;
  friend auto operator<=>(const Value& a, const Value& b) {
    return a.to_string() <=> b.to_string();
  }

 private:
  std::variant<std::int64_t, double, std::string> v_{std::int64_t{0}};
};

// Numeric values compare as numbers (2 and 2.0 are the same value; two integers exactly, even
// beyond 2^53), strings as text; a string never equals a number.
[[nodiscard]] bool same_value(const Value& a, const Value& b);

// The value for people: the shortest text that reads back as the same number, with ".0" on
// a double that would read as an integer ("0.1", "1.0", "256", "float4").
[[nodiscard]] std::string value_text(const Value& v);

// Agrees with operator== (0.0 and -0.0 are equal), for sets of values.
struct ValueHash {
  std::size_t operator()(const Value& v) const noexcept;
};

}  // namespace kev
