#include "cuda/source_kind.h"

#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace kev::cuda {
namespace {

// Replaces comments and the contents of string and character literals by spaces, so a
// "<<<" in a comment or a string does not count.
std::string code_only(const std::string& text) {
  std::string out = text;
  enum { code, line_comment, block_comment, string, character } state = code;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/') {
          state = line_comment;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = block_comment;
          out[i] = ' ';
        } else if (c == '"') {
          state = string;
        } else if (c == '\'') {
          state = character;
        }
        break;
      case line_comment:
        if (c == '\n') {
          state = code;
        } else {
          out[i] = ' ';
        }
        break;
      case block_comment:
        if (c == '*' && next == '/') {
          out[i] = ' ';
          out[i + 1] = ' ';
          ++i;
          state = code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case string:
      case character:
        if (c == '\\') {
          out[i] = ' ';
          if (i + 1 < out.size()) out[++i] = ' ';
        } else if ((state == string && c == '"') || (state == character && c == '\'')) {
          state = code;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

bool includes_host_header(const std::string& code) {
  // Headers NVRTC cannot open: it ships no C or C++ library (CUDA 13.0 NVRTC fails even on
  // <cstdint> and <type_traits>; <cuda/std/...> is the device-side replacement), and host
  // libraries. Device-side headers such as <cuda_runtime.h> or <cuda_fp16.h> are fine.
  static const std::set<std::string, std::less<>> host_headers = {
      // C++ library
      "algorithm", "any", "array", "atomic", "bit", "bitset", "cassert", "cctype", "cerrno",
      "cfenv", "cfloat", "charconv", "chrono", "cinttypes", "climits", "clocale", "cmath",
      "codecvt", "compare", "complex", "concepts", "condition_variable", "csetjmp", "csignal",
      "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime", "cuchar", "cwchar",
      "cwctype", "deque", "exception", "execution", "filesystem", "format", "forward_list",
      "fstream", "functional", "future", "initializer_list", "iomanip", "ios", "iosfwd", "iostream",
      "istream", "iterator", "limits", "list", "locale", "map", "memory", "memory_resource",
      "mutex", "new", "numbers", "numeric", "optional", "ostream", "queue", "random", "ranges",
      "ratio", "regex", "scoped_allocator", "set", "shared_mutex", "span", "sstream", "stack",
      "stdexcept", "streambuf", "string", "string_view", "system_error", "thread", "tuple",
      "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility",
      "valarray", "variant", "vector", "version",
      // C library
      "assert.h", "ctype.h", "errno.h", "float.h", "inttypes.h", "limits.h", "locale.h", "math.h",
      "setjmp.h", "signal.h", "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h",
      "time.h", "wchar.h", "unistd.h", "pthread.h",
      // host libraries
      "thrust/device_vector.h", "thrust/host_vector.h", "cublas_v2.h", "cudnn.h",
      "torch/extension.h", "ATen/ATen.h"};
  static const std::regex include(R"(^[ \t]*#[ \t]*include[ \t]*<([^>]+)>)");
  std::istringstream lines(code);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, include) && host_headers.count(m[1].str()) != 0) return true;
  }
  return false;
}

// Blanks the lines NVRTC never sees: those inside `#ifndef __CUDACC_RTC__` or
// `#if !defined(__CUDACC_RTC__)` (up to the matching #else or #endif), so a source that
// guards its host code that way can go to NVRTC.
std::string visible_to_nvrtc(const std::string& code) {
  static const std::regex rtc_excluded(
      R"(^[ \t]*#[ \t]*(ifndef[ \t]+__CUDACC_RTC__|if[ \t]+!defined[ \t]*\(?[ \t]*__CUDACC_RTC__[ \t]*\)?)[ \t]*$)");
  static const std::regex opens(R"(^[ \t]*#[ \t]*if)");
  static const std::regex elses(R"(^[ \t]*#[ \t]*(else|elif))");
  static const std::regex closes(R"(^[ \t]*#[ \t]*endif)");
  std::vector<bool> excluded;  // per open conditional: is this branch hidden from NVRTC?
  std::string out;
  std::istringstream lines(code);
  for (std::string line; std::getline(lines, line);) {
    bool hidden = false;
    for (bool e : excluded) hidden = hidden || e;
    if (std::regex_search(line, rtc_excluded)) {
      excluded.push_back(true);
    } else if (std::regex_search(line, opens)) {
      excluded.push_back(false);
    } else if (std::regex_search(line, elses) && !excluded.empty()) {
      excluded.back() = false;
    } else if (std::regex_search(line, closes) && !excluded.empty()) {
      excluded.pop_back();
    }
    out += hidden ? std::string() : line;
    out += '\n';
  }
  return out;
}

}  // namespace

bool holds_host_code(const std::string& source_text) {
  const std::string code = visible_to_nvrtc(code_only(source_text));
  if (code.find("<<<") != std::string::npos) return true;
  static const std::regex main_fn(R"(\bint[ \t\n]+main[ \t\n]*\()");
  if (std::regex_search(code, main_fn)) return true;
  return includes_host_header(code);
}

CompilerKind choose_compiler(const std::string& source_text) {
  return holds_host_code(source_text) ? CompilerKind::nvcc : CompilerKind::nvrtc;
}

}  // namespace kev::cuda
