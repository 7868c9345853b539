#include "core/source_safety.h"

#include <array>
#include <set>
#include <vector>

#include "core/kernel_regions.h"
#include "core/source_lexer.h"

namespace kev {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

// Past blanks and /* */ comments on the same line.
std::size_t skip_blanks(std::string_view s, std::size_t i) {
  while (i < s.size()) {
    if (is_blank(s[i])) {
      ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      const auto close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
    } else {
      break;
    }
  }
  return i;
}

// The rest of a logical line from `i`, comments removed, whitespace collapsed.
std::string rest_of_line(std::string_view s, std::size_t i) {
  std::string out;
  while (i < s.size() && s[i] != '\n') {
    if (s.compare(i, 2, "//") == 0) break;
    if (s.compare(i, 2, "/*") == 0) {
      const auto close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
      out += ' ';
      continue;
    }
    out += s[i++];
  }
  return normalize_whitespace(out);
}

struct IncludeLike {
  std::string name;     // include, include_next, import, embed, __has_include, ...
  std::string operand;  // `<x.h>`, `"x.h"`, or whatever stands there
  std::size_t raw_offset = 0;
  [[nodiscard]] std::string key() const { return name + " " + operand; }
};

constexpr std::array<std::string_view, 4> kDirectives{"include", "include_next", "import", "embed"};
constexpr std::array<std::string_view, 3> kProbes{"__has_include", "__has_include_next",
                                                  "__has_embed"};

// Every #include-like construct, found on the spliced text (trigraphs and digraphs read),
// whatever context it stands in: a string literal cannot hide one from this scan.
std::vector<IncludeLike> find_include_like(std::string_view raw) {
  const SplicedText spliced = splice_lines(raw, /*trigraphs=*/true);
  const std::string_view s = spliced.text;
  std::vector<IncludeLike> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool hash = s[i] == '#';
    const bool digraph = s.compare(i, 2, "%:") == 0;
    if (hash || digraph) {
      std::size_t j = skip_blanks(s, i + (hash ? 1 : 2));
      std::size_t k = j;
      while (k < s.size() && is_ident_char(s[k])) ++k;
      const std::string_view name = s.substr(j, k - j);
      for (const auto d : kDirectives)
        if (name == d)
          out.push_back({std::string(name), rest_of_line(s, k), spliced.raw_offset[i]});
      continue;
    }
    if (s[i] != '_' || (i > 0 && is_ident_char(s[i - 1]))) continue;
    std::size_t k = i;
    while (k < s.size() && is_ident_char(s[k])) ++k;
    const std::string_view name = s.substr(i, k - i);
    for (const auto p : kProbes) {
      if (name != p) continue;
      // __has_include ( "x" ): the operand is what stands inside the parentheses.
      std::size_t j = skip_blanks(s, k);
      std::string operand;
      if (j < s.size() && s[j] == '(') {
        const auto close = s.find_first_of(")\n", j + 1);
        operand = normalize_whitespace(
            s.substr(j + 1, (close == std::string_view::npos ? s.size() : close) - j - 1));
      }
      out.push_back({std::string(name), operand, spliced.raw_offset[i]});
    }
    i = k - 1;
  }
  return out;
}

// Empty when the path is acceptable, else why not.
std::string path_problem(std::string_view path) {
  if (path.empty()) return "an empty path";
  if (path.front() == '/') return "an absolute path";
  if (path.front() == '~') return "a home-relative path";
  if (path.find('\\') != std::string_view::npos) return "a backslash in the path";
  if (path.find(':') != std::string_view::npos) return "a drive or scheme in the path";
  std::size_t start = 0;
  bool first = true;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const auto part = path.substr(start, slash - start);
    if (part == "..") return "a path escaping with '..'";
    if (first) {
      static constexpr std::array<std::string_view, 5> kSystem{"proc", "dev", "etc", "sys", "root"};
      for (const auto sys : kSystem)
        if (part == sys) return "a path into /" + std::string(sys);
    }
    first = false;
    start = slash + 1;
  }
  return {};
}

}  // namespace

Status check_includes(std::string_view candidate, std::string_view original,
                      const std::string& file, const IncludePolicy* policy) {
  std::set<std::string> known;
  for (const auto& inc : find_include_like(original)) known.insert(inc.key());

  for (const auto& inc : find_include_like(candidate)) {
    if (known.count(inc.key()) != 0) continue;
    const SourceLocation where{file, line_of(candidate, inc.raw_offset), 0};
    const bool probe = inc.name.rfind("__has_", 0) == 0;
    const std::string what = probe ? inc.name : "#" + inc.name;
    if (inc.name != "include" && inc.name != "__has_include")
      return make_error("refused `" + what + "` in model-written source", where, ExitCode::failure);
    const std::string& rest = inc.operand;
    if (rest.size() < 2 || (rest.front() != '<' && rest.front() != '"'))
      return make_error(
          "refused computed " + what + " `" + rest.substr(0, 80) + "` (only <path> or \"path\")",
          where, ExitCode::failure);
    const bool angled = rest.front() == '<';
    const auto close = rest.find(angled ? '>' : '"', 1);
    if (close == std::string::npos)
      return make_error("refused malformed " + what + " `" + rest.substr(0, 80) + "`", where,
                        ExitCode::failure);
    const std::string path = rest.substr(1, close - 1);
    std::string why = path_problem(path);
    if (why.empty() && policy != nullptr) why = policy->check_include(path, angled);
    if (!why.empty())
      return make_error("refused " + what + " of \"" + path + "\": " + why, where,
                        ExitCode::failure);
  }
  return ok_status();
}

}  // namespace kev
