#pragma once
// How `kernelevo export --torch` maps a kernel spec onto a PyTorch operator's signature
// (docs/torch-export.md): pointer arguments that the kernel reads become tensors, outputs are
// allocated and returned, inouts are mutated in place, scratch buffers are allocated for each
// call; scalars that are a problem dimension are read off the tensors, float and constant
// scalars become keyword arguments with the spec's value as default. A problem dimension
// that no tensor's shape gives becomes a required keyword argument.
//
// A tensor's element count that is a product of dimensions and integer literals
// ("rows*2*hidden") is read as axis groups, each literal joining the dimension after it
// (before it, when last): (rows, 2*hidden). A tensor with at least as many axes as groups
// matches the groups from the right, the first group taking the product of the leading axes
// ((batch, seq, cols) is rows = batch*seq, cols); the first tensor, in spec order, whose
// groups name a dimension gives it. Every count is checked at call time.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/spec.h"

namespace kev {

// One axis group of a tensor's element count: `factor` times dimension `dim` (empty: the
// literal `factor` alone).
struct AxisGroup {
  std::string dim;
  std::int64_t factor = 1;
  friend bool operator==(const AxisGroup&, const AxisGroup&) = default;
};

enum class TorchArgRole { input, inout, output, scratch, dim_scalar, keyword, computed };
[[nodiscard]] const char* to_string(TorchArgRole role);

struct TorchArg {
  std::string name;
  TorchArgRole role = TorchArgRole::input;
  // pointers: the count's axis groups, empty when the count is no such product (its
  // elements are still checked)
  std::vector<AxisGroup> groups;
  // dim_scalar: the dimension it passes
  std::string dim;
  // keyword: the default (a float scalar's value or a constant integer expression's)
  std::optional<double> float_default;
  std::optional<std::int64_t> int_default;
};

// Where a problem dimension comes from: axis group `group` of tensor `arg`, or a keyword.
struct DimSource {
  std::string dim;
  std::string arg;  // empty: a required keyword argument of the operator
  std::size_t group = 0;
};

struct TorchSignature {
  std::vector<TorchArg> args;   // in the spec's order
  std::vector<DimSource> dims;  // every problem dimension, in the order of the first problem
};

// Python's keywords and soft keywords, and names the generated package uses itself, cannot
// name an argument; kernel ids must be Python identifiers too.
[[nodiscard]] bool is_python_identifier(std::string_view name);

// The signature of `spec`'s operator; an error (at the spec) when an argument's name cannot
// be a Python keyword argument or clashes with a dimension that becomes one.
[[nodiscard]] Result<TorchSignature> torch_signature(const KernelSpec& spec);

// The axis groups of a count expression's text, empty when it is not a product of
// identifiers among `dims` and integer literals.
[[nodiscard]] std::vector<AxisGroup> axis_groups(const std::string& count_text,
                                                 const std::vector<std::string>& dims);

}  // namespace kev
