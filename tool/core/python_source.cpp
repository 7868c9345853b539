#include "core/python_source.h"

#include <cctype>

namespace kev {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n\\");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n\\");
  return std::string(s.substr(b, e - b + 1));
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The source with every string's and comment's characters replaced by blanks (newlines kept),
// so offsets and lines stay those of the source; the comments are collected on the way.
std::string mask(std::string_view s, std::vector<PyComment>& comments) {
  std::string out(s);
  int line = 1;
  std::size_t line_start = 0;
  std::size_t i = 0;
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      ++i;
    } else if (c == '#') {
      std::size_t end = s.find('\n', i);
      if (end == std::string_view::npos) end = s.size();
      PyComment cm;
      cm.line = line;
      cm.column = static_cast<int>(i - line_start) + 1;
      cm.own_line =
          s.substr(line_start, i - line_start).find_first_not_of(" \t\f") == std::string_view::npos;
      cm.text = std::string(s.substr(i + 1, end - i - 1));
      if (!cm.text.empty() && cm.text.back() == '\r') cm.text.pop_back();
      comments.push_back(std::move(cm));
      blank(i, end);
      i = end;
    } else if (c == '\'' || c == '"') {
      const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
      const std::size_t start = i;
      i += triple ? 3 : 1;
      while (i < s.size()) {
        if (s[i] == '\\') {
          if (i + 1 < s.size() && s[i + 1] == '\n') {
            ++line;
            line_start = i + 2;
          }
          i += 2;
          continue;
        }
        if (s[i] == '\n') {
          if (!triple) break;  // an unterminated string ends at its line
          ++line;
          line_start = i + 1;
        }
        if (s[i] == c && (!triple || (i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      blank(start + 1, i > start + 1 ? i - 1 : start + 1);
    } else {
      ++i;
    }
  }
  return out;
}

bool is_constexpr_annotation(std::string_view a) {
  const std::string t = trim(a);
  return t == "constexpr" || t == "tl.constexpr" || t == "triton.language.constexpr" ||
         t == "language.constexpr";
}

bool is_jit_decorator(std::string_view d) {
  std::string t = trim(d);
  const auto paren = t.find('(');
  if (paren != std::string::npos) t = trim(std::string_view(t).substr(0, paren));
  return t == "triton.jit" || t == "jit";
}

// The parameters between the '(' at `open` of `masked` (the original text in `source`) and its
// matching ')'; nullopt-like (known = false) when the list is not plain names.
void parse_params(std::string_view source, std::string_view masked, std::size_t open, int open_line,
                  PyFunction& f) {
  int depth = 0;
  std::size_t part_start = open + 1;
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  std::size_t k = open;
  for (; k < masked.size(); ++k) {
    const char c = masked[k];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        parts.emplace_back(part_start, k);
        break;
      }
    } else if (c == ',' && depth == 1) {
      parts.emplace_back(part_start, k);
      part_start = k + 1;
    }
  }
  if (k >= masked.size()) {
    f.params_known = false;
    return;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto [b, e] = parts[i];
    const std::string m = trim(masked.substr(b, e - b));
    if (m.empty()) {
      if (i + 1 == parts.size() && i > 0) continue;  // a trailing comma
      if (parts.size() == 1) continue;               // no parameters
      f.params_known = false;
      return;
    }
    if (!ident_start(m[0])) {  // *args, **kwargs, a bare * or /
      f.params_known = false;
      return;
    }
    PyParam p;
    std::size_t n = 0;
    while (n < m.size() && ident_char(m[n])) ++n;
    p.name = m.substr(0, n);
    // Offsets into the original text, for the annotation and the default as written.
    const std::size_t lead = masked.substr(b, e - b).find_first_not_of(" \t\r\n\\");
    const std::size_t at = b + lead + n;
    const std::string_view rest_masked = masked.substr(at, e - at);
    const std::string_view rest = source.substr(at, e - at);
    std::size_t eq = std::string_view::npos;
    int d = 0;
    for (std::size_t j = 0; j < rest_masked.size(); ++j) {
      const char c = rest_masked[j];
      if (c == '(' || c == '[' || c == '{') ++d;
      if (c == ')' || c == ']' || c == '}') --d;
      if (c == '=' && d == 0) {
        eq = j;
        break;
      }
    }
    const std::string_view before = rest.substr(0, eq);
    const std::string head = trim(before);
    if (!head.empty()) {
      if (head[0] != ':') {
        f.params_known = false;
        return;
      }
      p.annotation = trim(std::string_view(head).substr(1));
    }
    if (eq != std::string_view::npos) p.default_text = trim(rest.substr(eq + 1));
    p.is_constexpr = is_constexpr_annotation(p.annotation);
    p.line = open_line;
    for (std::size_t c = open; c < b + lead; ++c)
      if (masked[c] == '\n') ++p.line;
    f.params.push_back(std::move(p));
  }
}

}  // namespace

bool is_triton_option(std::string_view name) {
  return name == "num_warps" || name == "num_stages" || name == "num_ctas";
}

PySource scan_python(std::string_view source) {
  PySource out;
  const std::string masked = mask(source, out.comments);
  std::vector<std::pair<std::string, int>> pending;  // decorators above the next def
  int line = 1;
  std::size_t pos = 0;
  int depth = 0;  // brackets open across lines (a decorator's arguments, a call)
  while (pos < masked.size()) {
    std::size_t end = masked.find('\n', pos);
    if (end == std::string::npos) end = masked.size();
    const std::string_view l = std::string_view(masked).substr(pos, end - pos);
    const int depth_before = depth;
    for (const char c : l) {
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    const bool top = depth_before == 0 && !l.empty() && l[0] != ' ' && l[0] != '\t';
    if (top && l[0] == '@') {
      std::size_t stop = l.size();
      // A decorator spanning lines: take its text up to the bracket that closes it.
      std::string text(source.substr(pos + 1, end - pos - 1));
      if (depth > 0) {
        std::size_t k = end;
        int d = depth;
        while (k < masked.size() && d > 0) {
          ++k;
          if (k >= masked.size()) break;
          const char c = masked[k];
          if (c == '(' || c == '[' || c == '{') ++d;
          if (c == ')' || c == ']' || c == '}') --d;
        }
        text = std::string(source.substr(pos + 1, std::min(k + 1, masked.size()) - pos - 1));
      }
      (void)stop;
      pending.emplace_back(trim(text), line);
    } else if (top) {
      std::string_view rest = l;
      if (rest.substr(0, 6) == "async ") rest.remove_prefix(6);
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      if (rest.substr(0, 4) == "def " || rest.substr(0, 4) == "def\t") {
        rest.remove_prefix(4);
        while (!rest.empty() && (rest[0] == ' ' || rest[0] == '\t')) rest.remove_prefix(1);
        std::size_t n = 0;
        while (n < rest.size() && ident_char(rest[n])) ++n;
        PyFunction f;
        f.name = std::string(rest.substr(0, n));
        f.def_line = line;
        f.first_line = pending.empty() ? line : pending.front().second;
        for (auto& [d, at] : pending) {
          f.triton_jit = f.triton_jit || is_jit_decorator(d);
          f.decorators.push_back(d);
        }
        const std::size_t open =
            masked.find('(', pos + static_cast<std::size_t>(rest.data() - l.data()) + n);
        if (open == std::string::npos || n == 0) {
          f.params_known = false;
        } else {
          parse_params(source, masked, open, line, f);
        }
        if (!f.name.empty()) out.functions.push_back(std::move(f));
      }
      if (l.find_first_not_of(" \t\r") != std::string_view::npos) pending.clear();
    }
    line += 1;
    pos = end + 1;
  }
  return out;
}

const PyFunction* find_function(const PySource& source, std::string_view name) {
  for (const auto& f : source.functions)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace kev
