#pragma once
// Checks of a parsed spec against the text of its source, the mistakes a first spec makes:
// errors for a `kernel` the source does not define as a __global__ function, and for `args`
// that do not match the kernel's parameters in number or kind (pointer or scalar);
// warnings for a tuning parameter the source never uses and for one without an
// `#ifndef NAME` default (a `-DNAME=` value is then redefined, or the source does not build
// without kernelevo).
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/spec.h"

namespace kev {

struct SourceCheck {
  std::vector<Error> errors;
  std::vector<Error> warnings;
};

// `source_text` is the text of `spec.source`. A templated entry (`kernel: f<P>`) is looked
// up by its base name; its template arguments count as uses of the parameters they name.
[[nodiscard]] SourceCheck check_spec_against_source(const KernelSpec& spec,
                                                    std::string_view source_text);

// The same for a Triton kernel (`spec.language == triton`; `source_text` is the .py file):
// `kernel` must be a top-level `@triton.jit` function with plain parameters; `args` are its
// parameters that are not `tl.constexpr`, by name and in order; each tuning parameter is one
// of its constexpr parameters or num_warps (a power of two to 32), num_stages (1 to 16) or
// num_ctas (1, 2, 4 or 8: a program is a thread-block cluster of that many CTAs); every
// constexpr without a default is tuned.
[[nodiscard]] SourceCheck check_triton_spec_against_source(const KernelSpec& spec,
                                                           std::string_view source_text);

}  // namespace kev
