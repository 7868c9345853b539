#include "io/markdown_text.h"

#include <algorithm>
#include <cctype>

namespace kev::io {

namespace {

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

constexpr std::string_view kZeroWidthSpace = "&#8203;";

}  // namespace

std::string markdown_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char prev = i > 0 ? text[i - 1] : ' ';
    const char next = i + 1 < text.size() ? text[i + 1] : ' ';
    // '[', '<' and '&' start markup only before what a link, a tag or an entity needs next,
    // so a plain "y[17]" or "a < b" stays readable where the Markdown is read raw.
    const bool markup = std::string_view("\\`*|~$").find(c) != std::string_view::npos ||
                        (c == ']' && (next == '(' || next == '[')) ||
                        (c == '<' && (std::isalpha(static_cast<unsigned char>(next)) != 0 ||
                                      next == '/' || next == '!' || next == '?')) ||
                        (c == '&' && (is_alnum(next) || next == '#'));
    if (is_control(c)) {
      out += ' ';
    } else if (markup) {
      out += '\\';
      out += c;
    } else if (c == '_' && !(is_alnum(prev) && is_alnum(next))) {
      out += "\\_";  // inside a word, '_' emphasises nothing (snake_case stays as is)
    } else if (c == ':' && prev == ':') {
      out += "\\:";
    } else {
      out += c;
      if (c == '@' || (c == '#' && std::isdigit(static_cast<unsigned char>(next)) != 0))
        out += kZeroWidthSpace;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text, bool in_table) {
  if (text.empty()) return "";
  std::string body;
  std::size_t run = 0;
  std::size_t longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (is_control(c))
      body += ' ';
    else if (c == '|' && in_table)
      body += "\\|";
    else
      body += c;
  }
  // A span's content loses one space at each end when it has one at both, and a backtick
  // next to the fence would lengthen it: a space on each side keeps the text as it is.
  const bool all_spaces = body.find_first_not_of(' ') == std::string::npos;
  const bool pad = body.front() == '`' || body.back() == '`' ||
                   (body.front() == ' ' && body.back() == ' ' && !all_spaces);
  const std::string fence(longest + 1, '`');
  const std::string space = pad ? " " : "";
  return fence + space + body + space + fence;
}

}  // namespace kev::io
