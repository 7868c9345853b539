#include "core/source_defaults.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "core/expr.h"
#include "core/kernel_regions.h"
#include "core/python_source.h"
#include "core/source_lexer.h"

namespace kev {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Value parse_literal(const std::string& text) {
  std::int64_t i = 0;
  const char* end = text.data() + text.size();
  if (auto [p, ec] = std::from_chars(text.data(), end, i); ec == std::errc() && p == end)
    return Value(i);
  double d = 0.0;
  if (auto [p, ec] = std::from_chars(text.data(), end, d); ec == std::errc() && p == end)
    return Value(d);
  // A constant integer expression, as defaults like `(4 * 32)` are written.
  if (auto e = Expr::parse(text, SourceLocation{}); e && e->names().empty())
    if (auto v = e->eval([](std::string_view) { return std::nullopt; })) return Value(*v);
  return Value(text);
}

// "#define NAME text" (already spliced, comments removed) -> {NAME, text}; function-like
// macros and other directives give nothing.
std::optional<std::pair<std::string, std::string>> object_define(const std::string& directive) {
  std::size_t i = directive.rfind("%:", 0) == 0 ? 2 : 1;
  while (i < directive.size() && directive[i] == ' ') ++i;
  if (directive.compare(i, 6, "define") != 0) return std::nullopt;
  i += 6;
  if (i >= directive.size() || directive[i] != ' ') return std::nullopt;
  while (i < directive.size() && directive[i] == ' ') ++i;
  std::size_t j = i;
  while (j < directive.size() && is_ident_char(directive[j])) ++j;
  if (j == i || (j < directive.size() && directive[j] == '(')) return std::nullopt;
  return std::make_pair(directive.substr(i, j - i), normalize_whitespace(directive.substr(j)));
}

// The directive's text as the preprocessor sees it: splices joined, comments as one blank.
std::string directive_text(std::string_view raw) {
  const SplicedText spliced = splice_lines(raw);
  std::string out;
  const std::string_view s = spliced.text;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) break;
    if (s.compare(i, 2, "/*") == 0) {
      const auto close = s.find("*/", i + 2);
      if (close == std::string_view::npos) break;
      i = close + 1;
      out += ' ';
      continue;
    }
    out += s[i];
  }
  return normalize_whitespace(out);
}

}  // namespace

std::optional<std::string> source_default_text(std::string_view source_text,
                                               std::string_view name) {
  for (const auto& t : lex_cuda(source_text)) {
    if (t.kind != TokenKind::directive) continue;
    const auto d = object_define(directive_text(t.text(source_text)));
    if (d && d->first == name) {
      if (d->second.empty()) return std::nullopt;
      return d->second;
    }
  }
  return std::nullopt;
}

Result<ParamSet> source_defaults(std::string_view source_text, const KernelSpec& spec) {
  ParamSet out;
  if (spec.language == SourceLanguage::triton) {
    const PySource py = scan_python(source_text);
    const PyFunction* f = find_function(py, spec.kernel);
    if (f == nullptr)
      return make_error("kernel `" + spec.kernel + "` is not defined in " + spec.source,
                        spec.where);
    for (const auto& p : spec.params) {
      if (is_triton_option(p.name)) {  // Triton's own defaults for NVIDIA GPUs
        out[p.name] = Value(p.name == "num_warps" ? 4 : p.name == "num_stages" ? 3 : 1);
        continue;
      }
      const auto q = std::find_if(f->params.begin(), f->params.end(),
                                  [&](const PyParam& x) { return x.name == p.name; });
      if (q != f->params.end() && !q->default_text.empty()) {
        out[p.name] = parse_literal(q->default_text);
      } else if (!p.values.empty()) {
        out[p.name] = p.values.front();  // no default in the signature: the first listed value
      }
    }
    return out;
  }
  for (const auto& p : spec.params) {
    const auto text = source_default_text(source_text, p.name);
    if (!text)
      return make_error("parameter " + p.name +
                            " has no default in the source: add "
                            "`#ifndef " +
                            p.name + "` / `#define " + p.name +
                            " <value>` so the "
                            "source builds without kernelevo",
                        p.where);
    out[p.name] = parse_literal(*text);
  }
  return out;
}

}  // namespace kev
