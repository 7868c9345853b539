#pragma once
// Where a marked kernel's parts lie in its source file, and the rule that model-written
// variants may change only the kernel's own code: the spec comment block, the reference
// kernel, the kernel's signature and everything outside the kernel's region are frozen.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;  // exclusive
  [[nodiscard]] bool overlaps(const TextSpan& other) const {
    return begin < other.end && other.begin < end;
  }
  [[nodiscard]] bool contains(const TextSpan& inner) const {
    return begin <= inner.begin && inner.end <= end;
  }
};

// Names the parts of one source file that matter for a kernel.
struct KernelNames {
  std::string file;       // for error messages
  std::string entry;      // the spec's `kernel`: "softmax_rows" or "softmax<SOFTMAX_BLOCK>"
  std::string reference;  // the spec's `reference`: a kernel name, "default" or empty
};

struct KernelRegions {
  std::optional<TextSpan> spec_block;  // the @kernelevo comment (and its "clang-format on")
  TextSpan signature;                  // declaration start up to the body's '{'
  TextSpan body;                       // '{' ... '}' inclusive
  std::optional<TextSpan> reference;   // the reference kernel's whole definition
  // The kernel's own region: from after the spec block (or the reference kernel, when it
  // sits between the two) to the end of the body. It contains the frozen signature.
  TextSpan editable;
};

// "softmax<SOFTMAX_BLOCK>" -> "softmax"; "ns::f" -> "f".
[[nodiscard]] std::string entry_base_name(std::string_view entry);

// Errors name the file (and line) and say what was not found.
[[nodiscard]] Result<KernelRegions> locate_kernel_regions(std::string_view source,
                                                          const KernelNames& names);

// The span of the first definition of `function_name` (signature start to closing brace).
[[nodiscard]] std::optional<TextSpan> find_definition(std::string_view source,
                                                      std::string_view function_name);

// Accepts `candidate` only when it keeps every frozen part of `original`: the text before
// the kernel's region (including the spec block), the reference kernel, the signature
// (up to same_launch_abi) and the text after the kernel's body. The error says which
// part changed, with the original's file:line.
[[nodiscard]] Status check_frozen_parts(std::string_view original, std::string_view candidate,
                                        const KernelNames& names);

// Whether a kernel signature keeps the original's launch ABI: the same words in order,
// except `__restrict__` added or removed, `const` added (on a pointee or a value) and
// `__launch_bounds__(...)` added, changed or removed. Names and types stay.
[[nodiscard]] bool same_launch_abi(std::string_view original, std::string_view candidate);

// Collapses runs of whitespace to one space and trims.
[[nodiscard]] std::string normalize_whitespace(std::string_view text);

}  // namespace kev
