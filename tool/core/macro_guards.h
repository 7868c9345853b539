#pragma once
// Where a source defines a macro without an `#ifndef NAME` guard around the definition, and
// the headers it includes by `"..."`: a source of an optimized target that defines a tuned
// parameter this way builds its own value, not the one kernelevo generates for the target.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kev {

struct UnguardedDefine {
  std::string name;
  int line = 0;  // 1-based
};

// `#define NAME` lines of `source` for a NAME of `names` not inside an `#ifndef NAME` (or
// `#if !defined(NAME)`) branch; the `#else` of such a guard is not guarded.
[[nodiscard]] std::vector<UnguardedDefine> unguarded_defines(
    std::string_view source, const std::set<std::string, std::less<>>& names);

// The names of the source's `#include "name"` directives, in order.
[[nodiscard]] std::vector<std::string> quoted_includes(std::string_view source);

}  // namespace kev
