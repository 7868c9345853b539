#pragma once
// The compile request for one parameter set of a kernel spec: the spec's include
// directories, defines and flags (the build's compile settings among them, see
// io/compile_settings_apply.h), then the parameters as -D values, which come last and so win.
// A Triton spec's request carries the configuration (constexprs, num_warps, num_stages) as
// its defines and the arguments' Triton types as its signature (cuda/triton_compiler.h).
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

// Whether the reference is compiled on its own: it is in another source, or it is another
// function of a Triton source (Triton compiles one function at a time).
[[nodiscard]] bool separate_reference(const KernelSpec& spec);

// The compile of a separate reference: a Triton function gets `defaults` for the constexprs
// it takes (and num_warps, num_stages); a .cu kernel of another source its own defaults.
// `source_text` is the spec's source text (a reference in the same file compiles it).
[[nodiscard]] CompileRequest reference_request_for(const KernelSpec& spec,
                                                   const std::string& source_text,
                                                   const ParamSet& defaults,
                                                   const std::string& arch);

}  // namespace kev::cuda
