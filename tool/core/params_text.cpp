#include "core/params_text.h"

namespace kev {

std::string params_text(const ParamSet& params, std::string_view separator,
                        std::string_view empty) {
  if (params.empty()) return std::string(empty);
  std::string s;
  for (const auto& [name, value] : params) {
    if (!s.empty()) s += separator;
    s += name + "=" + value_text(value);
  }
  return s;
}

}  // namespace kev
