#pragma once
// Conversions between parameter values (and sets of them, and problems) and JSON.
#include <nlohmann/json.hpp>
#include <vector>

#include "core/evaluation.h"
#include "core/spec.h"
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

// {"NAME": value, ...}, in the set's order.
template <class Json>
Json params_to_json(const ParamSet& params) {
  Json j = Json::object();
  for (const auto& [name, v] : params) j[name] = value_to_json<Json>(v);
  return j;
}

// [{"dim": size, ...}, ...]: each problem's dimensions.
template <class Json>
Json problems_to_json(const std::vector<Problem>& problems) {
  Json out = Json::array();
  for (const auto& p : problems) {
    Json dims = Json::object();
    for (const auto& [name, value] : p.dims) dims[name] = value;
    out.push_back(std::move(dims));
  }
  return out;
}

}  // namespace kev::io
