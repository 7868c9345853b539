#pragma once
// A small lexer for CUDA C++ source: just enough structure to find a kernel's definition,
// its signature and body, comments and preprocessor directives, without being fooled by
// braces or names inside comments and string literals.
#include <cstddef>
#include <string_view>
#include <vector>

namespace kev {

enum class TokenKind { identifier, number, literal, punct, comment, directive };

struct Token {
  TokenKind kind = TokenKind::punct;
  std::size_t begin = 0;  // byte offsets into the source
  std::size_t end = 0;
  [[nodiscard]] std::string_view text(std::string_view source) const {
    return source.substr(begin, end - begin);
  }
};

// Never fails: unterminated comments or literals run to the end of the text.
[[nodiscard]] std::vector<Token> lex_cuda(std::string_view source);

// 1-based line number of a byte offset.
[[nodiscard]] int line_of(std::string_view source, std::size_t offset);

}  // namespace kev
