#pragma once
// The values a source gives its parameters when none is set: its `#define NAME VALUE`
// fallbacks (DESIGN.md section 2). The baseline and the reference run with these, so their
// launch geometry matches the code they were compiled as.
#include <optional>
#include <string>
#include <string_view>

#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

// The replacement text of the first object-like `#define NAME text` of the source, read as
// the preprocessor reads it (splices joined, comments removed, blanks trimmed), or nullopt.
// The one reading of a source's defaults: the tuner's (below) and the header's.
[[nodiscard]] std::optional<std::string> source_default_text(std::string_view source_text,
                                                             std::string_view name);

// Every spec parameter needs a `#define` in the source; the first one found is used.
// A Triton kernel's (a .py source): each constexpr's default in the function's signature,
// else its first listed value; num_warps 4, num_stages 3 and num_ctas 1 (Triton's own).
// A value that is an integer or float literal becomes that number, a constant integer
// expression (`(4 * 32)`) its value, anything else a string.
[[nodiscard]] Result<ParamSet> source_defaults(std::string_view source_text,
                                               const KernelSpec& spec);

}  // namespace kev
