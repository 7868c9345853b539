#include "core/source_lexer.h"

#include <algorithm>
#include <string>

namespace kev {

namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// End of a quoted literal starting at `i` (the opening quote), honouring backslashes.
std::size_t literal_end(std::string_view s, std::size_t i) {
  const char quote = s[i];
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\') {
      ++j;
    } else if (s[j] == quote || s[j] == '\n') {
      return j + 1;
    }
  }
  return s.size();
}

// End of a directive line starting at `i` (the '#'), following backslash continuations and
// skipping comments so that a "/*" spanning lines is consumed whole.
std::size_t directive_end(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size()) {
    if (s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n') {
      j += 2;
    } else if (s[j] == '\n') {
      return j;
    } else if (s.compare(j, 2, "/*") == 0) {
      const auto close = s.find("*/", j + 2);
      j = close == std::string_view::npos ? s.size() : close + 2;
    } else if (s.compare(j, 2, "//") == 0) {
      const auto nl = s.find('\n', j);
      return nl == std::string_view::npos ? s.size() : nl;
    } else if (s[j] == '"' || s[j] == '\'') {
      j = literal_end(s, j);
    } else {
      ++j;
    }
  }
  return s.size();
}

std::vector<Token> lex_spliced(std::string_view s);

}  // namespace

SplicedText splice_lines(std::string_view raw, bool trigraphs) {
  // Phase 1: line ends and (optionally) trigraphs, keeping where each character came from.
  std::string one;
  std::vector<std::size_t> from;
  one.reserve(raw.size());
  from.reserve(raw.size() + 1);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    std::size_t width = 1;
    if (c == '\r') {
      c = '\n';
      if (i + 1 < raw.size() && raw[i + 1] == '\n') width = 2;
    } else if (trigraphs && c == '?' && i + 2 < raw.size() && raw[i + 1] == '?' &&
               (raw[i + 2] == '=' || raw[i + 2] == '/')) {
      c = raw[i + 2] == '=' ? '#' : '\\';
      width = 3;
    }
    one += c;
    from.push_back(i);
    i += width - 1;
  }
  from.push_back(raw.size());
  // Phase 2: splices, a backslash then blanks then a line end.
  SplicedText out;
  out.text.reserve(one.size());
  out.raw_offset.reserve(one.size() + 1);
  for (std::size_t i = 0; i < one.size(); ++i) {
    if (one[i] == '\\') {
      std::size_t j = i + 1;
      while (j < one.size() &&
             (one[j] == ' ' || one[j] == '\t' || one[j] == '\f' || one[j] == '\v'))
        ++j;
      if (j < one.size() && one[j] == '\n') {
        i = j;
        continue;
      }
    }
    out.text += one[i];
    out.raw_offset.push_back(from[i]);
  }
  out.raw_offset.push_back(raw.size());
  return out;
}

std::vector<Token> lex_cuda(std::string_view source) {
  const SplicedText spliced = splice_lines(source);
  std::vector<Token> tokens = lex_spliced(spliced.text);
  for (auto& t : tokens) {
    t.begin = spliced.raw_offset[t.begin];
    t.end = spliced.raw_offset[t.end];
  }
  return tokens;
}

namespace {

std::vector<Token> lex_spliced(std::string_view s) {
  std::vector<Token> tokens;
  bool line_start = true;  // only whitespace since the last newline
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      if (c == '\n') line_start = true;
      ++i;
      continue;
    }
    Token t;
    t.begin = i;
    // "%:" is the digraph spelling of '#'.
    if ((c == '#' || s.compare(i, 2, "%:") == 0) && line_start) {
      t.kind = TokenKind::directive;
      t.end = directive_end(s, i);
    } else if (s.compare(i, 2, "//") == 0) {
      t.kind = TokenKind::comment;
      const auto nl = s.find('\n', i);
      t.end = nl == std::string_view::npos ? s.size() : nl;
    } else if (s.compare(i, 2, "/*") == 0) {
      t.kind = TokenKind::comment;
      const auto close = s.find("*/", i + 2);
      t.end = close == std::string_view::npos ? s.size() : close + 2;
    } else if (c == '"' || c == '\'') {
      t.kind = TokenKind::literal;
      t.end = literal_end(s, i);
    } else if (is_ident_start(c)) {
      std::size_t j = i + 1;
      while (j < s.size() && is_ident_char(s[j])) ++j;
      // Raw string literal R"delim( ... )delim" (and u8R, LR...).
      if (j < s.size() && s[j] == '"' && s[j - 1] == 'R') {
        const auto open = s.find('(', j);
        if (open != std::string_view::npos) {
          const std::string close = ")" + std::string(s.substr(j + 1, open - j - 1)) + "\"";
          const auto end = s.find(close, open);
          t.kind = TokenKind::literal;
          t.end = end == std::string_view::npos ? s.size() : end + close.size();
          tokens.push_back(t);
          i = t.end;
          line_start = false;
          continue;
        }
      }
      t.kind = TokenKind::identifier;
      t.end = j;
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      std::size_t j = i + 1;
      while (j < s.size() &&
             (is_ident_char(s[j]) || s[j] == '.' || s[j] == '\'' ||
              ((s[j] == '+' || s[j] == '-') &&
               (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P'))))
        ++j;
      t.kind = TokenKind::number;
      t.end = j;
    } else {
      t.kind = TokenKind::punct;
      t.end = i + 1;
    }
    tokens.push_back(t);
    i = std::max(t.end, i + 1);
    // A comment is whitespace: a '#' after it still starts a directive when only blanks and
    // comments came before on the line (a comment spanning lines does not start a new one).
    if (t.kind != TokenKind::comment) line_start = false;
  }
  return tokens;
}

}  // namespace

int line_of(std::string_view source, std::size_t offset) {
  offset = std::min(offset, source.size());
  return 1 + static_cast<int>(std::count(
                 source.begin(), source.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace kev
