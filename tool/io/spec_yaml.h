#pragma once
// Parsing kernel specs from YAML: the `@kernelevo` comment blocks of .cu sources and the
// entries of a project's kernelevo.yaml. Shape and type checks happen here (unknown keys,
// missing keys, bad types); checks across specs and of expression names live in
// core/spec_check.h and io/spec_loader.h.
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/spec.h"

namespace kev {

// A `/* @kernelevo ... */` comment found in a source file.
struct MarkedBlock {
  std::string yaml;            // the lines after the @kernelevo line, up to "*/"
  SourceLocation mark;         // where "@kernelevo" is
  int yaml_first_line = 0;     // line of the file holding the YAML's first line (1-based)
  bool guarded = false;        // "// clang-format off" before and "// clang-format on" after
  int kernel_line = 0;         // first "__global__" line after the block, 0 if none
  std::string kernel_name;     // name of the function declared there, empty if not found
  bool triton = false;         // a `# @kernelevo` block of a .py source
  int yaml_column_offset = 0;  // columns before the YAML's on each line ("# " in a .py file)
};

// Finds the marked blocks of `source` (comments, string literals and line comments are
// told apart, so a "/*" inside a string is not a block).
[[nodiscard]] std::vector<MarkedBlock> find_marked_blocks(std::string_view source,
                                                          const std::string& file);

// Finds the marked blocks of a Python source: a run of `#` comment lines, each alone on its
// line at the same column, the first `# @kernelevo`; each line's YAML is its text after the
// '#' and one blank. The kernel is the first top-level `def` after the block (its
// `@triton.jit` decorator is checked later). Comments in strings are not blocks.
[[nodiscard]] std::vector<MarkedBlock> find_python_marked_blocks(std::string_view source,
                                                                 const std::string& file);

struct SpecParse {
  std::vector<KernelSpec> specs;
  // Specs with errors whose params and problems are sound, so that the checks across specs
  // and of expression names can still report everything at once.
  std::vector<KernelSpec> partial;
  std::vector<Error> errors;
  std::vector<Error> warnings;
};

// Parses the spec of one marked block of `file`.
[[nodiscard]] SpecParse parse_marked_block(const MarkedBlock& block, const std::string& file);

// Parses a project file: a list of specs, or a map whose `kernels:` key holds that list.
// Each entry names its `source`, relative to the project file's directory; the spec's
// `source` is that path joined to the project file's directory. kernel_line is left 0.
[[nodiscard]] SpecParse parse_project_yaml(std::string_view yaml, const std::string& file);

}  // namespace kev
