#include "core/device_only_rules.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/source_lexer.h"

namespace kev {

namespace {

struct Tok {
  std::string_view text;
  TokenKind kind;
  std::size_t offset;
};
using Toks = std::vector<Tok>;

// Attributes that change layout, inlining or warnings only.
constexpr std::array<std::string_view, 22> kHarmlessAttributes{
    "aligned",      "__aligned__", "always_inline", "__always_inline__", "noinline",
    "__noinline__", "unused",      "__unused__",    "maybe_unused",      "nodiscard",
    "likely",       "unlikely",    "packed",        "__packed__",        "deprecated",
    "fallthrough",  "noreturn",    "pure",          "__pure__",          "const",
    "hot",          "cold"};
// Identifiers whose parentheses are not a function's parameter list.
constexpr std::array<std::string_view, 10> kParenWords{
    "__attribute__", "__align__", "alignas",  "__launch_bounds__", "decltype",
    "sizeof",        "alignof",   "noexcept", "__declspec",        "_Alignas"};

bool one_of(std::string_view word, const auto& list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool is(const Tok& t, std::string_view text) { return t.text == text; }

// Index of the token closing the group opened at `open`, or `end` when unbalanced.
std::size_t closing(const Toks& t, std::size_t open, std::size_t end) {
  const std::string_view o = t[open].text;
  const std::string_view c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (std::size_t i = open; i < end; ++i) {
    if (t[i].kind != TokenKind::punct) continue;
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  return end;
}

class Checker {
 public:
  Checker(std::string_view source, const KernelNames& names) : source_(source), names_(names) {}

  Status declarations(const Toks& t, std::size_t b, std::size_t e, bool members) {
    for (const auto& [s, f] : split(t, b, e))
      if (auto st = declaration(t, s, f, members); !st) return st;
    return ok_status();
  }

  std::set<std::string> unchanged;  // the original's declarations, word for word

 private:
  Error refused(const Tok& at, const std::string& why) const {
    return make_error("refused a helper: " + why,
                      SourceLocation{names_.file, line_of(source_, at.offset), 0},
                      ExitCode::failure);
  }

  // Top-level declarations of [b, e): each ends at a ';' outside brackets, or at the '}'
  // closing a function, namespace or linkage body.
  static std::vector<std::pair<std::size_t, std::size_t>> split(const Toks& t, std::size_t b,
                                                                std::size_t e) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t start = b;
    for (std::size_t i = b; i < e; ++i) {
      if (t[i].kind == TokenKind::directive && i == start) {
        out.emplace_back(i, i + 1);
        start = i + 1;
        continue;
      }
      if (is(t[i], ";")) {
        out.emplace_back(start, i + 1);
        start = i + 1;
      } else if (is(t[i], "(") || is(t[i], "[")) {
        i = std::min(closing(t, i, e), e - 1);
      } else if (is(t[i], "{")) {
        const std::size_t close = std::min(closing(t, i, e), e - 1);
        bool initialiser = false;
        bool type = false;
        for (std::size_t k = start; k < i; ++k) {
          if (is(t[k], "=")) initialiser = true;
          if (is(t[k], "struct") || is(t[k], "class") || is(t[k], "union") || is(t[k], "enum"))
            type = true;
          if (is(t[k], "(")) {
            const bool word = k > start && one_of(t[k - 1].text, kParenWords);
            if (!word) type = false;  // a function returning a struct
            k = closing(t, k, i);
          }
        }
        i = close;
        if (!initialiser && !type) {
          out.emplace_back(start, i + 1);
          start = i + 1;
        }
      }
    }
    if (start < e) out.emplace_back(start, e);
    return out;
  }

  std::string normalized(const Toks& t, std::size_t s, std::size_t f) const {
    std::string out;
    for (std::size_t i = s; i < f; ++i) out += std::string(t[i].text) + " ";
    return out;
  }

  Status attributes(const Toks& t, std::size_t s, std::size_t f) const {
    for (std::size_t i = s; i < f; ++i) {
      const bool gnu = is(t[i], "__attribute__") || is(t[i], "__declspec");
      const bool std_attr = is(t[i], "[") && i + 1 < f && is(t[i + 1], "[");
      if (!gnu && !std_attr) {
        if (is(t[i], "{")) i = closing(t, i, f);  // bodies are device code: not examined
        continue;
      }
      if (is(t[i], "__declspec")) return refused(t[i], "`__declspec` is not allowed");
      const std::size_t open = gnu ? i + 1 : i;
      if (open >= f || !is(t[open], gnu ? "(" : "[")) continue;
      const std::size_t close = closing(t, open, f);
      bool expect_name = true;
      int depth = 0;
      for (std::size_t k = open; k < close; ++k) {
        if (is(t[k], "(") || is(t[k], "[")) {
          ++depth;
          if (depth <= 2) expect_name = true;
          continue;
        }
        if (is(t[k], ")") || is(t[k], "]")) {
          --depth;
          continue;
        }
        if (is(t[k], ",") && depth <= 2) {
          expect_name = true;
          continue;
        }
        if (expect_name && t[k].kind == TokenKind::identifier && depth <= 2) {
          if (k + 2 < close && is(t[k + 1], ":") && is(t[k + 2], ":")) {  // gnu::name
            k += 2;
            continue;
          }
          if (!one_of(t[k].text, kHarmlessAttributes))
            return refused(t[k], "attribute `" + std::string(t[k].text) + "` is not allowed");
          expect_name = false;
        }
      }
      i = close;
    }
    return ok_status();
  }

  // The index of the parameter list's '(' when [s, f) declares a function.
  static std::optional<std::size_t> function_paren(const Toks& t, std::size_t s, std::size_t f) {
    for (std::size_t i = s; i < f; ++i) {
      if (is(t[i], "=") || is(t[i], "{")) return std::nullopt;
      if (!is(t[i], "(")) continue;
      if (i > s && one_of(t[i - 1].text, kParenWords)) {
        i = closing(t, i, f);
        continue;
      }
      return i;
    }
    return std::nullopt;
  }

  // An initialiser that runs no code: no call, no braces.
  static bool constant_initialiser(const Toks& t, std::size_t s, std::size_t f) {
    bool after_eq = false;
    for (std::size_t i = s; i < f; ++i) {
      if (is(t[i], "=")) after_eq = true;
      if (!after_eq) continue;
      if (is(t[i], "{")) return false;
      if (is(t[i], "(") && i > s && t[i - 1].kind == TokenKind::identifier &&
          !one_of(t[i - 1].text, kParenWords))
        return false;
    }
    return true;
  }

  Status declaration(const Toks& t, std::size_t s, std::size_t f, bool member) {
    if (s >= f) return ok_status();
    if (t[s].kind == TokenKind::directive) return ok_status();
    if (f - s == 1 && is(t[s], ";")) return ok_status();
    if (!member && unchanged.count(normalized(t, s, f)) != 0) return ok_status();
    // Access specifiers.
    while (member && s + 1 < f &&
           (is(t[s], "public") || is(t[s], "private") || is(t[s], "protected")) &&
           is(t[s + 1], ":"))
      s += 2;
    if (s >= f) return ok_status();
    if (auto st = attributes(t, s, f); !st) return st;
    // `template <...>` prefixes.
    while (s < f && is(t[s], "template")) {
      std::size_t k = s + 1;
      int depth = 0;
      for (; k < f; ++k) {
        if (is(t[k], "<")) ++depth;
        if (is(t[k], ">") && --depth == 0) break;
      }
      s = k + 1;
    }
    if (s >= f) return ok_status();
    const Tok& first = t[s];
    if (is(first, "static_assert") || is(first, "typedef") || is(first, "using"))
      return ok_status();
    if (is(first, "friend")) return refused(first, "`friend` declarations are not allowed");
    if (is(first, "namespace")) {
      for (std::size_t k = s; k < f; ++k)
        if (is(t[k], "{")) return declarations(t, k + 1, closing(t, k, f), false);
      return ok_status();  // a namespace alias
    }
    bool device = false;
    bool storage_static = false;
    bool constant = false;  // constexpr / constinit
    bool is_const = false;
    std::size_t brace_depth = 0;
    for (std::size_t k = s; k < f; ++k) {
      if (is(t[k], "{")) ++brace_depth;
      if (is(t[k], "}")) --brace_depth;
      if (brace_depth > 0 || t[k].kind != TokenKind::identifier) continue;
      const std::string_view w = t[k].text;
      if (w == "asm" || w == "__asm__" || w == "__asm")
        return refused(t[k], "`asm` outside a function body is not allowed");
      if (w == "__host__") return refused(t[k], "host code (`__host__`) is not allowed");
      if (w == "__global__") return refused(t[k], "a second kernel (`__global__`) is not allowed");
      if (w == "__managed__") return refused(t[k], "`__managed__` memory is not allowed");
      if (w == "extern") {
        if (k + 1 < f && t[k + 1].kind == TokenKind::literal)
          return refused(t[k], "a linkage specification (`extern \"...\"`) is not allowed");
        bool shared = false;
        for (std::size_t j = s; j < f; ++j) shared = shared || is(t[j], "__shared__");
        if (!shared) return refused(t[k], "`extern` declarations are not allowed");
      }
      if (w == "__device__" || w == "__constant__" || w == "__shared__") device = true;
      if (w == "constexpr" || w == "constinit") constant = true;
      if (w == "const") is_const = true;
      if (w == "static") storage_static = true;
    }
    // A type definition: its members follow the member rules.
    for (std::size_t k = s; k < f; ++k) {
      if (is(t[k], "(")) {
        if (k > s && one_of(t[k - 1].text, kParenWords)) {
          k = closing(t, k, f);
          continue;
        }
        break;
      }
      if (is(t[k], "=")) break;
      if (!(is(t[k], "struct") || is(t[k], "class") || is(t[k], "union") || is(t[k], "enum")))
        continue;
      std::size_t open = k;
      while (open < f && !is(t[open], "{") && !is(t[open], ";")) ++open;
      if (open >= f || is(t[open], ";")) return ok_status();  // a declaration of the type
      const std::size_t close = closing(t, open, f);
      if (!is(t[k], "enum"))
        if (auto st = declarations(t, open + 1, close, true); !st) return st;
      for (std::size_t j = close + 1; j < f; ++j)
        if (t[j].kind == TokenKind::identifier && !device && !member)
          return refused(t[j], "a variable of a type defined here needs `__device__`");
      return ok_status();
    }
    if (const auto paren = function_paren(t, s, f)) {
      if (device) return ok_status();
      if (member) {
        for (std::size_t k = closing(t, *paren, f); k + 1 < f; ++k)
          if (is(t[k], "=") && (is(t[k + 1], "default") || is(t[k + 1], "delete")))
            return ok_status();
      }
      return refused(t[*paren > s ? *paren - 1 : s],
                     "a function that is not `__device__` (host code) is not allowed");
    }
    // A variable.
    if (member && !storage_static) return ok_status();
    if (device || constant) return ok_status();
    if (is_const && constant_initialiser(t, s, f)) return ok_status();
    return refused(first, member ? "a static member needs `constexpr`"
                                 : "a host variable is not allowed (use `__device__`, "
                                   "`__constant__` or `constexpr`)");
  }

  std::string_view source_;
  const KernelNames& names_;

 public:
  // Tokens of [begin, end) of `text` without comments.
  static Toks tokens_in(std::string_view text, std::size_t begin, std::size_t end) {
    Toks out;
    for (const auto& tok : lex_cuda(text)) {
      if (tok.kind == TokenKind::comment || tok.begin < begin || tok.end > end) continue;
      out.push_back({tok.text(text), tok.kind, tok.begin});
    }
    return out;
  }
  std::string key(const Toks& t, std::size_t s, std::size_t f) const { return normalized(t, s, f); }
  static std::vector<std::pair<std::size_t, std::size_t>> top_level(const Toks& t) {
    return split(t, 0, t.size());
  }
};

}  // namespace

Status check_device_only_helpers(std::string_view original, std::string_view candidate,
                                 const KernelNames& names) {
  auto mine = locate_kernel_regions(candidate, names);
  if (!mine) return mine.error();
  Checker checker(candidate, names);
  if (auto theirs = locate_kernel_regions(original, names)) {
    const Toks before =
        Checker::tokens_in(original, theirs->editable.begin, theirs->signature.begin);
    for (const auto& [s, f] : Checker::top_level(before))
      checker.unchanged.insert(checker.key(before, s, f));
  }
  const Toks helpers = Checker::tokens_in(candidate, mine->editable.begin, mine->signature.begin);
  return checker.declarations(helpers, 0, helpers.size(), false);
}

}  // namespace kev
