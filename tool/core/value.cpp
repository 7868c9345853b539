#include "core/value.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

namespace kev {

double Value::as_double() const {
  if (is_int()) return static_cast<double>(std::get<0>(v_));
  if (is_double()) return std::get<1>(v_);
  return std::numeric_limits<double>::quiet_NaN();
}

std::string Value::to_string() const {
  if (is_int()) return std::to_string(std::get<0>(v_));
  if (is_double()) {
    std::ostringstream os;
    os.precision(17);
    os << std::get<1>(v_);
    return os.str();
  }
  return std::get<2>(v_);
}

bool same_value(const Value& a, const Value& b) {
  if (a.is_string() || b.is_string()) return a == b;
  if (a.is_int() && b.is_int()) return a == b;
  return a.as_double() == b.as_double();
}

std::string value_text(const Value& v) {
  if (!v.is_double()) return v.to_string();
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v.as_double());
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";  // as the lockfile writes it
  return s;
}

std::size_t ValueHash::operator()(const Value& v) const noexcept {
  std::size_t h = 0;
  if (v.is_int()) {
    h = std::hash<std::int64_t>{}(std::get<0>(v.v_));
  } else if (v.is_double()) {
    const double d = std::get<1>(v.v_);
    h = d == 0.0 ? 0 : std::hash<double>{}(d);
  } else {
    h = std::hash<std::string>{}(std::get<2>(v.v_));
  }
  return h ^ (v.v_.index() * 0x9e3779b97f4a7c15ULL);
}

}  // namespace kev
