#pragma once
// Small kernelevo.yaml specs for the tests of one spec key, and a parse's first error as text.
#include <string>

#include "io/spec_yaml.h"

namespace kev::test_support {

// proj/kernelevo.yaml holding one kernel (B in {64, 128}, one problem n=1024, one output)
// with `key: value` on line 6.
inline SpecParse parse_spec_with(const std::string& key, const std::string& value) {
  return parse_project_yaml(
      "- source: a.cu\n"
      "  kernel: a\n"
      "  params: {B: [64, 128]}\n"
      "  problems: [{n: 1024}]\n"
      "  args: [{name: y, type: float*, count: n, output: true}]\n"
      "  " +
          key + ": " + value +
          "\n"
          "  launch: {grid: n, block: B}\n",
      "proj/kernelevo.yaml");
}

inline std::string first_error(const SpecParse& p) {
  return p.errors.empty() ? std::string("(none)") : p.errors.front().to_string();
}

}  // namespace kev::test_support
