#pragma once
// Parameter values for people, one text for every message, table and report.
#include <string>
#include <string_view>

#include "core/evaluation.h"

namespace kev {

// "BLOCK=256, SCALE=0.5": names in order, values as value_text writes them, joined by
// `separator`; `empty` where there are none (a configuration of the source's defaults).
[[nodiscard]] std::string params_text(const ParamSet& params, std::string_view separator = ", ",
                                      std::string_view empty = "source defaults");

}  // namespace kev
