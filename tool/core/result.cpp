#include "core/result.h"

namespace kev {

std::string SourceLocation::to_string() const {
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

std::string Error::to_string() const {
  std::string loc = where.to_string();
  return loc.empty() ? "error: " + message : loc + ": error: " + message;
}

}  // namespace kev
