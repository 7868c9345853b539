#pragma once
// A Python source read as text, never run: its comments, and its top-level functions with
// their decorators and parameters. What the spec of a Triton kernel needs to be found and
// checked (a `# @kernelevo` comment block above a `@triton.jit` function) without importing
// the module. Strings (single, triple-quoted, with prefixes) are told apart from code, so a
// "#" or a "def" inside one is neither a comment nor a function.
#include <string>
#include <string_view>
#include <vector>

namespace kev {

struct PyComment {
  int line = 0;          // 1-based
  int column = 0;        // 1-based column of the '#'
  bool own_line = true;  // nothing but blanks before it on its line
  std::string text;      // after the '#', up to the end of the line
};

struct PyParam {
  std::string name;
  std::string annotation;    // as written, blanks trimmed; empty if none
  std::string default_text;  // as written, blanks trimmed; empty if none
  bool is_constexpr =
      false;  // annotated `tl.constexpr` / `constexpr` / `triton.language.constexpr`
  int line = 0;
};

struct PyFunction {
  std::string name;
  int def_line = 0;                     // the `def` line
  int first_line = 0;                   // its first decorator's line (the `def` line when none)
  std::vector<std::string> decorators;  // as written after '@', blanks trimmed
  bool triton_jit = false;  // a decorator is triton.jit / jit, with or without arguments
  std::vector<PyParam> params;
  bool params_known = true;  // false: *args, **kwargs, '/' or '*' markers, or unbalanced text
};

struct PySource {
  std::vector<PyComment> comments;
  std::vector<PyFunction> functions;  // top-level `def`s (and `async def`s), in order
};

[[nodiscard]] PySource scan_python(std::string_view source);

// The function named `name`, or nullptr.
[[nodiscard]] const PyFunction* find_function(const PySource& source, std::string_view name);

// Launch options of a Triton kernel that a spec may tune besides its constexpr arguments.
[[nodiscard]] bool is_triton_option(std::string_view name);  // num_warps, num_stages, num_ctas

}  // namespace kev
