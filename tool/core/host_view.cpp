#include "core/host_view.h"

#include <algorithm>
#include <cstddef>
#include <map>

#include "core/source_lexer.h"

namespace kev {
namespace {

bool is(const Token& t, std::string_view source, std::string_view text) {
  return t.text(source) == text;
}

std::vector<Token> code_tokens(std::string_view source) {
  std::vector<Token> tokens;
  for (const Token& t : lex_cuda(source))
    if (t.kind != TokenKind::comment) tokens.push_back(t);
  return tokens;
}

// Spaces over [begin, end), line ends kept.
void blank(std::string& text, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i)
    if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
}

// Index of the token closing the bracket opened at `open`, or tokens.size().
std::size_t closing(const std::vector<Token>& tokens, std::string_view source, std::size_t open,
                    std::string_view opener, std::string_view closer) {
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    if (is(tokens[i], source, opener)) ++depth;
    if (is(tokens[i], source, closer) && --depth == 0) return i;
  }
  return tokens.size();
}

bool ends_statement(const Token& t, std::string_view source) {
  return t.kind == TokenKind::directive || is(t, source, ";") || is(t, source, "{") ||
         is(t, source, "}");
}

void blank_launch_attributes(std::string& view, std::string_view source,
                             const std::vector<Token>& tokens) {
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if ((is(t, source, "__launch_bounds__") || is(t, source, "__cluster_dims__") ||
         is(t, source, "__maxnreg__")) &&
        is(tokens[i + 1], source, "(")) {
      const std::size_t close = closing(tokens, source, i + 1, "(", ")");
      if (close == tokens.size()) return;
      blank(view, t.begin, tokens[close].end);
      i = close;
    }
  }
}

void blank_device_bodies(std::string& view, std::string_view source,
                         const std::vector<Token>& tokens) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != TokenKind::identifier) continue;
    if (!is(t, source, "__global__") && !is(t, source, "__device__")) continue;
    // The declaration: from the end of the previous statement to its body's '{'.
    std::size_t first = i;
    while (first > 0 && !ends_statement(tokens[first - 1], source)) --first;
    bool params = false;
    std::size_t body = tokens.size();
    for (std::size_t k = i + 1; k < tokens.size() && body == tokens.size(); ++k) {
      if (tokens[k].kind == TokenKind::directive || is(tokens[k], source, ";") ||
          is(tokens[k], source, "=") || is(tokens[k], source, "}"))
        break;  // a variable, a declaration without a body or a deleted function
      if (is(tokens[k], source, "(")) {
        params = true;
        k = closing(tokens, source, k, "(", ")");
      } else if (is(tokens[k], source, "[")) {
        k = closing(tokens, source, k, "[", "]");
      } else if (is(tokens[k], source, "{")) {
        if (!params) break;  // `__device__ int x{1};`
        body = k;
      }
    }
    if (body == tokens.size()) continue;
    bool host = false;
    for (std::size_t k = first; k < body; ++k) host = host || is(tokens[k], source, "__host__");
    const std::size_t close = closing(tokens, source, body, "{", "}");
    if (close == tokens.size()) return;
    if (!host) blank(view, tokens[body].begin + 1, tokens[close].begin);
    i = close;
  }
}

// Namespace- and class-scope declarations of the (already blanked) view, statement by
// statement, with the edits that set derived constants apart.
class DeclarationPass {
 public:
  DeclarationPass(std::string_view text, const std::vector<std::string>& watched)
      : text_(text), tokens_(code_tokens(text)) {
    for (const auto& w : watched) roots_[w] = w;
  }

  HostCodeView run() {
    std::vector<std::pair<Scope, std::size_t>> stack;  // with the statement start to resume
    std::size_t start = 0;
    auto at_declaration_scope = [&] {
      return std::all_of(stack.begin(), stack.end(),
                         [](const auto& s) { return s.first == Scope::declarations; });
    };
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::directive) {
        if (start == i) start = i + 1;
        continue;
      }
      if (is(t, text_, "{")) {
        const Scope kind = classify(start, i);
        stack.emplace_back(kind, start);
        if (kind == Scope::declarations) start = i + 1;
      } else if (is(t, text_, "}")) {
        if (stack.empty()) continue;
        const auto [kind, resume] = stack.back();
        stack.pop_back();
        if (kind == Scope::declarations) {
          start = i + 1;
        } else if (kind == Scope::function) {
          const bool in_expression =
              i + 1 < tokens_.size() &&
              (is(tokens_[i + 1], text_, ";") || is(tokens_[i + 1], text_, ",") ||
               is(tokens_[i + 1], text_, ")") || is(tokens_[i + 1], text_, "("));
          start = in_expression ? resume : i + 1;
        }
      } else if (is(t, text_, ";") && at_declaration_scope()) {
        statement(start, i);
        start = i + 1;
      }
    }
    std::sort(edits_.begin(), edits_.end(),
              [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
    std::string out(text_);
    for (const Edit& e : edits_) {
      std::string replacement = e.text;
      for (std::size_t k = e.begin; k < e.end; ++k)
        if (out[k] == '\n') replacement += '\n';
      out.replace(e.begin, e.end - e.begin, replacement);
    }
    return {std::move(out), std::move(derived_)};
  }

 private:
  struct Edit {
    std::size_t begin;
    std::size_t end;
    std::string text;
  };

  enum class Scope { declarations, function, initializer };

  // What a '{' after the statement's tokens [from, brace) opens.
  Scope classify(std::size_t from, std::size_t brace) const {
    bool paren = false;
    bool type_key = false;
    for (std::size_t k = from; k < brace; ++k) {
      const Token& t = tokens_[k];
      if (is(t, text_, "namespace")) return Scope::declarations;
      if (is(t, text_, "extern") && k + 2 == brace && tokens_[k + 1].kind == TokenKind::literal)
        return Scope::declarations;  // extern "C" { ... }
      paren = paren || is(t, text_, "(");
      type_key = type_key || is(t, text_, "struct") || is(t, text_, "class") ||
                 is(t, text_, "union") || is(t, text_, "enum");
    }
    if (brace == from) return Scope::initializer;
    const Token& last = tokens_[brace - 1];
    for (const std::string_view word : {")", "const", "noexcept", "override", "final", "mutable"})
      if (is(last, text_, word)) return Scope::function;
    if (type_key) return Scope::declarations;
    return paren && last.kind == TokenKind::identifier ? Scope::function : Scope::initializer;
  }

  bool names_watched(std::size_t from, std::size_t to, std::string* root) const {
    for (std::size_t k = from; k < to; ++k) {
      if (tokens_[k].kind != TokenKind::identifier) continue;
      const auto it = roots_.find(std::string(tokens_[k].text(text_)));
      if (it == roots_.end()) continue;
      if (root) *root = it->second;
      return true;
    }
    return false;
  }

  void statement(std::size_t from, std::size_t to) {
    if (from >= to) return;
    const Token& first = tokens_[from];
    if (is(first, text_, "static_assert")) {
      edits_.push_back({first.begin, tokens_[to - 1].end, ""});
      return;
    }
    if (is(first, text_, "template")) return;
    if (is(first, text_, "using") && to - from > 3 &&
        tokens_[from + 1].kind == TokenKind::identifier && is(tokens_[from + 2], text_, "=")) {
      std::string root;
      if (!names_watched(from + 3, to, &root)) return;
      derive(from + 1, from + 3, to, root);
      edits_.push_back({tokens_[from + 1].end, tokens_[from + 1].end,
                        " [[deprecated(\"" + derived_marker(root) + "\")]]"});
      return;
    }
    bool constexpr_seen = false;
    bool device_variable = false;
    for (std::size_t k = from; k < to; ++k) {
      constexpr_seen = constexpr_seen || is(tokens_[k], text_, "constexpr");
      device_variable = device_variable || is(tokens_[k], text_, "__device__") ||
                        is(tokens_[k], text_, "__constant__") ||
                        is(tokens_[k], text_, "__managed__");
    }
    if (device_variable) {
      for (std::size_t k = from; k < to; ++k) {
        if (!is(tokens_[k], text_, "[")) continue;
        const std::size_t close = closing(tokens_, text_, k, "[", "]");
        if (close >= to) break;
        if (names_watched(k + 1, close, nullptr))
          edits_.push_back({tokens_[k].end, tokens_[close].begin, "1"});
        k = close;
      }
    }
    if (!constexpr_seen) return;
    // Declarators: NAME = INIT or NAME{INIT}, separated by top-level commas.
    std::vector<std::pair<std::size_t, std::pair<std::size_t, std::size_t>>> inits;
    int depth = 0;
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t init_from = kNone;
    std::size_t name = 0;
    for (std::size_t k = from; k < to; ++k) {
      const Token& t = tokens_[k];
      if (is(t, text_, "(") || is(t, text_, "[")) ++depth;
      if (is(t, text_, ")") || is(t, text_, "]")) --depth;
      if (depth != 0) continue;
      if (is(t, text_, "{")) {
        const std::size_t close = closing(tokens_, text_, k, "{", "}");
        if (close >= to) return;
        if (init_from == kNone && k > from && tokens_[k - 1].kind == TokenKind::identifier)
          inits.push_back({k - 1, {k + 1, close}});
        k = close;
      } else if (is(t, text_, "=") && init_from == kNone && k > from) {
        if (tokens_[k - 1].kind != TokenKind::identifier) return;  // an operator= or the like
        name = k - 1;
        init_from = k + 1;
      } else if (is(t, text_, ",") && init_from != kNone) {
        inits.push_back({name, {init_from, k}});
        init_from = kNone;
      }
    }
    if (init_from != kNone) inits.push_back({name, {init_from, to}});
    std::string root;
    for (const auto& [n, span] : inits) {
      std::string r;
      if (span.first >= span.second || !names_watched(span.first, span.second, &r)) continue;
      if (root.empty()) root = r;
      derive(n, span.first, span.second, r);
    }
    if (!root.empty())
      edits_.push_back(
          {first.begin, first.begin, "[[deprecated(\"" + derived_marker(root) + "\")]] "});
  }

  // The declaration of tokens_[name] with initializer [from, to) derives from `root`: the
  // watched parameters in it take the lowest built architecture's value (what nvcc's host
  // pass gives them), as a constant, so only the derived name's own uses are diagnosed.
  void derive(std::size_t name, std::size_t from, std::size_t to, const std::string& root) {
    const std::string declared(tokens_[name].text(text_));
    for (std::size_t k = from; k < to; ++k) {
      if (tokens_[k].kind != TokenKind::identifier) continue;
      const std::string word(tokens_[k].text(text_));
      const auto it = roots_.find(word);
      if (it != roots_.end() && it->second == word)
        edits_.push_back({tokens_[k].begin, tokens_[k].end, lowest_value_of(word)});
    }
    roots_[declared] = root;
    derived_.push_back({declared, root, line_of(text_, tokens_[name].begin)});
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  std::map<std::string, std::string> roots_;  // watched or derived name -> its parameter
  std::vector<Edit> edits_;
  std::vector<DerivedConstant> derived_;
};

}  // namespace

std::string lowest_value_of(std::string_view parameter) {
  return "(::kernelevo_params::" + std::string(parameter) +
         "_for(::kernelevo_params::lowest_built_arch()))";
}

std::string derived_marker(std::string_view parameter) {
  return "kernelevo: derived from " + std::string(parameter);
}

HostCodeView host_code_view(std::string_view source, const std::vector<std::string>& watched) {
  std::string view(source);
  const std::vector<Token> tokens = code_tokens(source);
  blank_launch_attributes(view, source, tokens);
  blank_device_bodies(view, source, tokens);
  return DeclarationPass(view, watched).run();
}

}  // namespace kev
