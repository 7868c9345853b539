#pragma once
// Conversions between parameter values and JSON.
#include <nlohmann/json.hpp>

#include "core/value.h"

namespace kev::io {

template <class Json>
Value value_from_json(const Json& j) {
  if (j.is_number_integer()) return Value(j.template get<std::int64_t>());
  if (j.is_number_float()) return Value(j.template get<double>());
  if (j.is_boolean()) return Value(std::int64_t{j.template get<bool>() ? 1 : 0});
  if (j.is_string()) return Value(j.template get<std::string>());
  return Value(j.dump());
}

template <class Json>
Json value_to_json(const Value& v) {
  if (v.is_int()) return Json(*v.as_int());
  if (v.is_double()) return Json(v.as_double());
  return Json(v.as_string());
}

}  // namespace kev::io
