#include "core/macro_guards.h"

#include "core/source_lexer.h"

namespace kev {

namespace {

// The tokens of a directive after its '#' (the lexer keeps "#" or "%:" in the text).
struct Directive {
  std::string_view body;
  std::vector<Token> tokens;
  [[nodiscard]] std::string_view word(std::size_t i) const {
    return i < tokens.size() ? tokens[i].text(body) : std::string_view{};
  }
};

Directive directive_of(std::string_view text) {
  Directive d;
  d.body = text.substr(text[0] == '#' ? 1 : 2);
  d.tokens = lex_cuda(d.body);
  return d;
}

// The name an `#ifndef NAME` or `#if !defined(NAME)` / `#if !defined NAME` guards, or "".
std::string_view guarded_name(const Directive& d) {
  if (d.word(0) == "ifndef") return d.word(1);
  if (d.word(0) == "if" && d.word(1) == "!" && d.word(2) == "defined") {
    const std::size_t at = d.word(3) == "(" ? 4 : 3;
    if (d.tokens.size() == at + 1 + (at == 4 ? 1 : 0)) return d.word(at);
  }
  return {};
}

}  // namespace

std::vector<UnguardedDefine> unguarded_defines(std::string_view source,
                                               const std::set<std::string, std::less<>>& names) {
  std::vector<UnguardedDefine> out;
  std::vector<std::string_view> open;  // per open conditional: the name its branch guards
  for (const Token& t : lex_cuda(source)) {
    if (t.kind != TokenKind::directive) continue;
    const Directive d = directive_of(t.text(source));
    const std::string_view keyword = d.word(0);
    if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
      open.push_back(guarded_name(d));
    } else if (keyword == "elif" || keyword == "else" || keyword == "elifdef" ||
               keyword == "elifndef") {
      if (!open.empty()) open.back() = {};
    } else if (keyword == "endif") {
      if (!open.empty()) open.pop_back();
    } else if (keyword == "define" && names.count(d.word(1)) > 0) {
      bool guarded = false;
      for (const auto name : open) guarded = guarded || name == d.word(1);
      if (!guarded) out.push_back({std::string(d.word(1)), line_of(source, t.begin)});
    }
  }
  return out;
}

std::vector<std::string> quoted_includes(std::string_view source) {
  std::vector<std::string> out;
  for (const Token& t : lex_cuda(source)) {
    if (t.kind != TokenKind::directive) continue;
    const Directive d = directive_of(t.text(source));
    if (d.word(0) != "include" || d.tokens.size() < 2 || d.tokens[1].kind != TokenKind::literal)
      continue;
    const std::string_view literal = d.word(1);
    if (literal.size() >= 2 && literal.front() == '"' && literal.back() == '"')
      out.emplace_back(literal.substr(1, literal.size() - 2));
  }
  return out;
}

}  // namespace kev
