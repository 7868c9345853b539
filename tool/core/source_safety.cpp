#include "core/source_safety.h"

#include <array>
#include <cctype>
#include <set>

#include "core/kernel_regions.h"
#include "core/source_lexer.h"

namespace kev {

namespace {

// Directive text with line continuations and comments removed, whitespace collapsed.
std::string clean_directive(std::string_view text) {
  std::string joined;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const auto close = text.find("*/", i + 2);
      if (close == std::string_view::npos) break;
      i = close + 1;
      joined += ' ';
      continue;
    }
    if (text.compare(i, 2, "//") == 0) break;
    joined += text[i];
  }
  return normalize_whitespace(joined);
}

// "# include <x>" / "%:include <x>" -> the directive name and the rest.
std::pair<std::string, std::string> split_directive(const std::string& text) {
  std::size_t i = text.rfind("%:", 0) == 0 ? 2 : 1;
  while (i < text.size() && text[i] == ' ') ++i;
  std::size_t j = i;
  while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
    ++j;
  std::size_t k = j;
  while (k < text.size() && text[k] == ' ') ++k;
  return {text.substr(i, j - i), text.substr(k)};
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
                      const std::string& file) {
  std::set<std::string> known;
  for (const auto& t : lex_cuda(original))
    if (t.kind == TokenKind::directive) known.insert(clean_directive(t.text(original)));

  for (const auto& t : lex_cuda(candidate)) {
    if (t.kind != TokenKind::directive) continue;
    const std::string text = clean_directive(t.text(candidate));
    if (known.count(text) != 0) continue;
    const auto [name, rest] = split_directive(text);
    const SourceLocation where{file, line_of(candidate, t.begin), 0};
    if (name == "include_next" || name == "embed" || name == "import")
      return make_error("refused `#" + name + "` in model-written source", where,
                        ExitCode::failure);
    if (name != "include") {
      // __has_include(...) probes the file system from #if lines: same path rules.
      const auto probe = rest.find("__has_include");
      if (probe == std::string::npos) continue;
      const auto open = rest.find_first_of("<\"", probe);
      if (open == std::string::npos) continue;
      const char close_c = rest[open] == '<' ? '>' : '"';
      const auto close = rest.find(close_c, open + 1);
      const auto path =
          rest.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
      if (const auto why = path_problem(path); !why.empty())
        return make_error("refused __has_include of \"" + path + "\": " + why, where,
                          ExitCode::failure);
      continue;
    }
    if (rest.size() < 2 || (rest.front() != '<' && rest.front() != '"'))
      return make_error("refused computed #include `" + rest + "` (only <path> or \"path\")", where,
                        ExitCode::failure);
    const char close_c = rest.front() == '<' ? '>' : '"';
    const auto close = rest.find(close_c, 1);
    if (close == std::string::npos)
      return make_error("refused malformed #include `" + rest + "`", where, ExitCode::failure);
    const std::string path = rest.substr(1, close - 1);
    if (const auto why = path_problem(path); !why.empty())
      return make_error("refused #include of \"" + path + "\": " + why, where, ExitCode::failure);
  }
  return ok_status();
}

}  // namespace kev
