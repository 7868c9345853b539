#pragma once
// The compile request for one parameter set of a kernel spec: the spec's include
// directories, defines and flags (the build's compile settings among them, see
// io/compile_settings_apply.h), then the parameters as -D values, which come last and so win.
#include <string>

#include "core/compiler.h"
#include "core/evaluation.h"
#include "core/spec.h"

namespace kev::cuda {

// `arch` is used unless the spec names one; `with_reference` adds the reference kernel.
[[nodiscard]] CompileRequest compile_request_for(const KernelSpec& spec,
                                                 const std::string& source_text,
                                                 const ParamSet& params, const std::string& arch,
                                                 bool with_reference);

}  // namespace kev::cuda
