#pragma once
// Which compiler a source needs. NVRTC compiles device code only: it cannot open host
// headers such as <vector> and rejects host-only constructs, so sources that hold host code
// go to nvcc.
#include <string>

namespace kev::cuda {

enum class CompilerKind { nvrtc, nvcc };

// True when the text shows host code outside comments, string literals and
// `#ifndef __CUDACC_RTC__` blocks: a C++ library header (<vector>, <cstdio>, <iostream>...),
// `int main`, or a `<<<` launch. A textual check: it does not evaluate other #if conditions.
[[nodiscard]] bool holds_host_code(const std::string& source_text);
[[nodiscard]] CompilerKind choose_compiler(const std::string& source_text);

}  // namespace kev::cuda
