#include "core/kernel_regions.h"

#include <algorithm>
#include <vector>

#include "core/source_lexer.h"

namespace kev {

namespace {

struct Definition {
  std::size_t signature_begin = 0;
  std::size_t lbrace = 0;    // offset of '{'
  std::size_t body_end = 0;  // one past '}'
};

bool is_punct(const Token& t, std::string_view source, char c) {
  return t.kind == TokenKind::punct && source[t.begin] == c;
}

// Index of the token closing the bracket opened at code token `open` (indices into `code`),
// or code.size() when unbalanced.
std::size_t matching(const std::vector<Token>& code, std::string_view source, std::size_t open,
                     char open_c, char close_c) {
  int depth = 0;
  for (std::size_t k = open; k < code.size(); ++k) {
    if (is_punct(code[k], source, open_c)) ++depth;
    if (is_punct(code[k], source, close_c) && --depth == 0) return k;
  }
  return code.size();
}

std::optional<Definition> find_definition_tokens(std::string_view source,
                                                 const std::vector<Token>& all,
                                                 std::string_view name) {
  std::vector<Token> code;
  std::vector<std::size_t> index_in_all;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].kind == TokenKind::comment || all[i].kind == TokenKind::directive) continue;
    code.push_back(all[i]);
    index_in_all.push_back(i);
  }
  for (std::size_t k = 0; k + 1 < code.size(); ++k) {
    if (code[k].kind != TokenKind::identifier || code[k].text(source) != name) continue;
    if (!is_punct(code[k + 1], source, '(')) continue;
    if (k > 0 && is_punct(code[k - 1], source, '.')) continue;
    std::size_t m = matching(code, source, k + 1, '(', ')');
    if (m >= code.size()) continue;
    // Between ")" and "{" only qualifiers and attributes such as __attribute__((...)).
    ++m;
    while (m < code.size()) {
      if (code[m].kind == TokenKind::identifier) {
        ++m;
      } else if (is_punct(code[m], source, '(')) {
        const std::size_t close = matching(code, source, m, '(', ')');
        if (close >= code.size()) break;
        m = close + 1;
      } else {
        break;
      }
    }
    if (m >= code.size() || !is_punct(code[m], source, '{')) continue;
    const std::size_t close = matching(code, source, m, '{', '}');
    if (close >= code.size()) continue;
    // The declaration starts after the previous statement, block, comment or directive.
    std::size_t i = index_in_all[k];
    while (i > 0) {
      const Token& prev = all[i - 1];
      if (prev.kind == TokenKind::comment || prev.kind == TokenKind::directive ||
          is_punct(prev, source, ';') || is_punct(prev, source, '}') || is_punct(prev, source, '{'))
        break;
      --i;
    }
    return Definition{all[i].begin, code[m].begin, code[close].end};
  }
  return std::nullopt;
}

std::size_t first_difference(std::string_view a, std::string_view b) {
  const auto n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return n;
}

Error frozen_error(std::string what, const KernelNames& names, std::string_view original,
                   std::size_t offset) {
  return make_error("the candidate changes " + std::move(what) + " (frozen from the original)",
                    SourceLocation{names.file, line_of(original, offset), 0}, ExitCode::failure);
}

// What lies at `offset` of the original, for error messages.
std::string part_at(const KernelRegions& r, const KernelNames& names, std::size_t offset,
                    bool before_kernel) {
  if (r.spec_block && r.spec_block->begin <= offset && offset < r.spec_block->end)
    return "the spec comment block";
  if (r.reference && r.reference->begin <= offset && offset <= r.reference->end)
    return "the reference kernel `" + names.reference + "`";
  return before_kernel ? "code before the kernel's own region" : "code after the kernel";
}

}  // namespace

std::string entry_base_name(std::string_view entry) {
  auto lt = entry.find('<');
  std::string_view base = entry.substr(0, lt);
  const auto colons = base.rfind("::");
  if (colons != std::string_view::npos) base = base.substr(colons + 2);
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  return std::string(base);
}

std::string normalize_whitespace(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::optional<TextSpan> find_definition(std::string_view source, std::string_view function_name) {
  const auto tokens = lex_cuda(source);
  const auto def = find_definition_tokens(source, tokens, function_name);
  if (!def) return std::nullopt;
  return TextSpan{def->signature_begin, def->body_end};
}

Result<KernelRegions> locate_kernel_regions(std::string_view source, const KernelNames& names) {
  const auto tokens = lex_cuda(source);
  const std::string entry = entry_base_name(names.entry);
  const auto def = find_definition_tokens(source, tokens, entry);
  if (!def)
    return make_error("no definition of kernel `" + entry + "` (with a body) found",
                      SourceLocation{names.file, 0, 0}, ExitCode::failure);
  KernelRegions r;
  r.signature = {def->signature_begin, def->lbrace};
  r.body = {def->lbrace, def->body_end};

  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.end > def->signature_begin) break;
    if (t.kind != TokenKind::comment || t.text(source).find("@kernelevo") == std::string_view::npos)
      continue;
    TextSpan block{t.begin, t.end};
    if (i + 1 < tokens.size() && tokens[i + 1].kind == TokenKind::comment &&
        tokens[i + 1].end <= def->signature_begin &&
        tokens[i + 1].text(source).find("clang-format on") != std::string_view::npos)
      block.end = tokens[i + 1].end;
    r.spec_block = block;
  }

  if (!names.reference.empty() && names.reference != "default") {
    if (const auto ref = find_definition_tokens(source, tokens, entry_base_name(names.reference)))
      r.reference = TextSpan{ref->signature_begin, ref->body_end};
  }

  r.editable = {r.spec_block ? r.spec_block->end : r.signature.begin, r.body.end};
  if (r.reference && r.editable.begin <= r.reference->begin &&
      r.reference->end <= r.signature.begin)
    r.editable.begin = r.reference->end;
  return r;
}

Status check_frozen_parts(std::string_view original, std::string_view candidate,
                          const KernelNames& names) {
  auto o = locate_kernel_regions(original, names);
  if (!o) return o.error();
  auto c = locate_kernel_regions(candidate, names);
  if (!c)
    return make_error("the candidate no longer defines kernel `" + entry_base_name(names.entry) +
                          "` (its entry name is frozen)",
                      SourceLocation{names.file, line_of(original, o->signature.begin), 0},
                      ExitCode::failure);

  const auto o_prefix = original.substr(0, o->editable.begin);
  const auto c_prefix = candidate.substr(0, c->editable.begin);
  if (o_prefix != c_prefix) {
    const auto d = first_difference(o_prefix, c_prefix);
    return frozen_error(part_at(*o, names, d, true), names, original, d);
  }
  const auto o_suffix = original.substr(o->body.end);
  const auto c_suffix = candidate.substr(c->body.end);
  if (o_suffix != c_suffix) {
    const auto d = o->body.end + first_difference(o_suffix, c_suffix);
    return frozen_error(part_at(*o, names, d, false), names, original, d);
  }
  if (!same_launch_abi(original.substr(o->signature.begin, o->signature.end - o->signature.begin),
                       candidate.substr(c->signature.begin, c->signature.end - c->signature.begin)))
    return frozen_error("the signature of kernel `" + entry_base_name(names.entry) +
                            "` (only __restrict__, an added const and __launch_bounds__ may "
                            "change)",
                        names, original, o->signature.begin);
  return ok_status();
}

bool same_launch_abi(std::string_view original, std::string_view candidate) {
  // The signature's words, without comments, restrict qualifiers and __launch_bounds__(...).
  const auto words = [](std::string_view text) {
    std::vector<std::string_view> out;
    const auto tokens = lex_cuda(text);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i].kind == TokenKind::comment) continue;
      const std::string_view w = tokens[i].text(text);
      if (w == "__restrict__" || w == "__restrict" || w == "restrict") continue;
      if (w == "__launch_bounds__" && i + 1 < tokens.size() && tokens[i + 1].text(text) == "(") {
        int depth = 0;
        for (++i; i < tokens.size(); ++i) {
          const std::string_view p = tokens[i].text(text);
          if (p == "(") ++depth;
          if (p == ")" && --depth == 0) break;
        }
        continue;
      }
      out.push_back(w);
    }
    return out;
  };
  const auto o = words(original);
  const auto c = words(candidate);
  // The original's words in order, the candidate adding only `const`s.
  std::size_t j = 0;
  for (const auto w : c) {
    if (j < o.size() && w == o[j]) {
      ++j;
    } else if (w != "const") {
      return false;
    }
  }
  return j == o.size();
}

}  // namespace kev
