#pragma once
// Building kernel specs in tests: expressions, integer parameters, and the huge space of
// 2 * 40^10 points that counting, sampling, strategies and checks must answer at once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/spec.h"

namespace kev::testing {

inline Expr expr(std::string_view text, const SourceLocation& origin = {"t.cu", 1, 1}) {
  auto e = Expr::parse(text, origin);
  EXPECT_TRUE(e.ok()) << text;
  return e.ok() ? *e : Expr{};
}

inline ParamSpec param(std::string name, const std::vector<std::int64_t>& values) {
  ParamSpec p;
  p.name = std::move(name);
  for (auto v : values) p.values.emplace_back(v);
  return p;
}

inline std::vector<std::int64_t> range(std::int64_t n) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

// A: [1, 2] and P0..P9: [0, 40), under `constraints`.
inline KernelSpec huge_spec(const std::vector<std::string>& constraints = {}) {
  KernelSpec spec;
  spec.params = {param("A", {1, 2})};
  for (int i = 0; i < 10; ++i) spec.params.push_back(param("P" + std::to_string(i), range(40)));
  for (const auto& c : constraints) spec.constraints.push_back(expr(c));
  return spec;
}

}  // namespace kev::testing
