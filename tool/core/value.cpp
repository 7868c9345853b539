#include "core/value.h"

#include <cmath>
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

}  // namespace kev
