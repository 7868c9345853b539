#pragma once
// A small lexer for CUDA C++ source: just enough structure to find a kernel's definition,
// its signature and body, comments and preprocessor directives, without being fooled by
// braces or names inside comments and string literals.
#include <cstddef>
#include <string>
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

// Translation phases 1 and 2 of the C preprocessor, as gcc and nvcc apply them: "\r\n" and
// a lone "\r" end a line ("\n"), and a backslash followed by blanks and a line end is
// removed (the blanks are accepted with a warning). With `trigraphs`, "??=" and "??/" are
// read as '#' and '\\' first (C++14 and older with -trigraphs). `raw_offset[i]` is where
// character i of `text` came from; one more entry holds the raw text's size.
struct SplicedText {
  std::string text;
  std::vector<std::size_t> raw_offset;
};
[[nodiscard]] SplicedText splice_lines(std::string_view raw, bool trigraphs = false);

// Never fails: unterminated comments or literals run to the end of the text. Offsets are
// into `source`; lexing follows the preprocessor: lines are spliced first, comments count
// as whitespace (a '#' after a comment at a line's start begins a directive), and every
// line end ("\n", "\r\n", "\r") ends a directive.
[[nodiscard]] std::vector<Token> lex_cuda(std::string_view source);

// 1-based line number of a byte offset.
[[nodiscard]] int line_of(std::string_view source, std::size_t offset);

}  // namespace kev
