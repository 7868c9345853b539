#pragma once
// The parts of a kernel spec a script needs to launch the kernel itself (arguments, launch
// geometry, metrics, compile settings) as JSON; expressions keep their source text.
#include <nlohmann/json.hpp>

#include "core/spec.h"

namespace kev::cli {

// Adds "defaults" (the source's own parameter values, read from spec.source; null when it
// cannot be read), "problems", "validate", "args", "launch", "reference", "tolerance", "metrics",
// "arch", "include_dirs", "defines" and "flags" to `out`.
void add_spec_json(const KernelSpec& spec, nlohmann::ordered_json& out);

}  // namespace kev::cli
