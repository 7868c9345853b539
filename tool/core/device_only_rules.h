#pragma once
// What model-written helpers may be. A candidate changes only the kernel's own region (the
// frozen-parts rule), but that region begins before the kernel, where helpers live, and
// host code there would ship in the build: a global constructor, a dynamic initialiser, a
// file-scope `asm(".incbin ...")` that the host assembler reads. So every declaration in
// front of the kernel that the original does not have word for word must be device-only:
//   - `__device__` functions (templates too), never `__host__` or a new `__global__`;
//   - `__device__`, `__constant__` and `__shared__` variables (`extern __shared__` too);
//   - `constexpr` values, and `const` ones whose initialiser calls nothing;
//   - types (struct, class, union, enum) whose member functions are `__device__` and
//     whose static members are constants; typedef, using, static_assert, namespaces of
//     the above, preprocessor lines (includes have their own rules: source_safety.h).
// Refused anywhere there: `asm` outside a function body, `extern` linkage other than
// `extern __shared__`, `__managed__`, and attributes other than layout and inlining hints
// (constructor, section, alias, ...).
#include <string_view>

#include "core/kernel_regions.h"
#include "core/result.h"

namespace kev {

// Errors use ExitCode::failure and name the candidate's file:line and the rule.
[[nodiscard]] Status check_device_only_helpers(std::string_view original,
                                               std::string_view candidate,
                                               const KernelNames& names);

}  // namespace kev
