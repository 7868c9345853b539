#pragma once
// A marked source opted into per-shape winners: `dispatch: {by: [DIM], buckets: per_problem}`
// added to its `@kernelevo` block, nothing else changed (`kernelevo init --template
// NAME --dispatch DIM`). The template itself stays as it is, so a user who does not opt in
// builds and calls it exactly as before. A macro-parameterised kernel NAME whose source
// defines a launcher NAME_launch gets `entries: [NAME_launch]` in the line too, so each
// compiled variant has its own launcher (NAME_launch_kev<K>).
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

// `source` (named `file` in errors) with the dispatch line appended to its marked block, at
// the block's indentation, before its closing "*/", in every marked block. Errors: no marked
// block, a block that already has `dispatch`, any error a spec then has (`DIM` not a
// dimension of every problem, ...), naming the kernel, and a source marking both macro-
// parameterised and template kernels (a dispatching source is compiled per winner).
[[nodiscard]] Result<std::string> add_dispatch(std::string_view source, const std::string& file,
                                               const std::string& dim);

}  // namespace kev
