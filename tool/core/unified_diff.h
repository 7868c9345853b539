#pragma once
// A unified diff (the format of `diff -u`, applicable with `patch -p1` / `git apply`) for
// reviewing a model-written variant against the original source.
#include <string>
#include <string_view>

namespace kev {

// Empty when the texts are equal. `context` lines around each change, as diff -u.
[[nodiscard]] std::string unified_diff(std::string_view before, std::string_view after,
                                       std::string_view before_label, std::string_view after_label,
                                       int context = 3);

}  // namespace kev
