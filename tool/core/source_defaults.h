#pragma once
// The values a source gives its parameters when none is set: its `#define NAME VALUE`
// fallbacks (DESIGN.md section 2). The baseline and the reference run with these, so their
// launch geometry matches the code they were compiled as.
#include <string>
#include <string_view>

#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

// Every spec parameter needs a `#define` in the source; the first one found is used.
// A value that is an integer or float literal becomes that number, anything else a string.
[[nodiscard]] Result<ParamSet> source_defaults(std::string_view source_text,
                                               const KernelSpec& spec);

}  // namespace kev
