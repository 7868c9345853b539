#pragma once
// Small kernelevo.yaml specs for the tests of one spec key, and a parse's first error as text.
#include <string>

#include "io/spec_yaml.h"

namespace kev::test_support {

// proj/kernelevo.yaml holding one kernel (B in {64, 128}, one problem n=1024, one output),
// with `line` (if any) as its line 6.
inline SpecParse parse_one_kernel_spec(const std::string& line) {
  return parse_project_yaml(
      "- source: a.cu\n"
      "  kernel: a\n"
      "  params: {B: [64, 128]}\n"
      "  problems: [{n: 1024}]\n"
      "  args: [{name: y, type: float*, count: n, output: true}]\n" +
          (line.empty() ? std::string() : "  " + line + "\n") + "  launch: {grid: n, block: B}\n",
      "proj/kernelevo.yaml");
}

// That kernel with `key: value` on line 6.
inline SpecParse parse_spec_with(const std::string& key, const std::string& value) {
  return parse_one_kernel_spec(key + ": " + value);
}

// That kernel without the key: what a spec that leaves it out gets.
inline SpecParse parse_spec_without_it() { return parse_one_kernel_spec(""); }

inline std::string first_error(const SpecParse& p) {
  return p.errors.empty() ? std::string("(none)") : p.errors.front().to_string();
}

}  // namespace kev::test_support
