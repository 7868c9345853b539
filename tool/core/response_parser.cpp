#include "core/response_parser.h"

namespace kev {

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    auto line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A marker line: at least 5 of `c`, optionally followed by `word`.
bool is_marker(std::string_view line, char c, std::string_view word) {
  line = trim(line);
  std::size_t n = 0;
  while (n < line.size() && line[n] == c) ++n;
  if (n < 5) return false;
  return trim(line.substr(n)) == word;
}

bool is_fence(std::string_view line, std::string_view* info) {
  line = trim(line);
  if (line.rfind("```", 0) != 0 && line.rfind("~~~", 0) != 0) return false;
  std::size_t n = 0;
  while (n < line.size() && line[n] == line[0]) ++n;
  if (info) *info = trim(line.substr(n));
  return true;
}

std::string join(const std::vector<std::string_view>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

}  // namespace

ParsedResponse parse_response(std::string_view text) {
  ParsedResponse parsed;
  const auto lines = split_lines(text);
  bool in_fence = false;
  bool fence_has_edits = false;
  std::size_t fence_start = 0;
  std::string fence_info;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_marker(lines[i], '<', "SEARCH")) {
      // An edit: SEARCH lines up to "=======", REPLACE lines up to ">>>>>>> REPLACE".
      std::size_t sep = i + 1;
      while (sep < lines.size() && !is_marker(lines[sep], '=', "")) ++sep;
      std::size_t end = sep + 1;
      while (end < lines.size() && !is_marker(lines[end], '>', "REPLACE")) ++end;
      if (sep >= lines.size() || end >= lines.size()) break;  // truncated edit: ignored
      parsed.edits.push_back(
          {join(lines, i + 1, sep), join(lines, sep + 1, end), static_cast<int>(i + 1)});
      fence_has_edits = true;
      i = end;
      continue;
    }
    std::string_view info;
    if (is_fence(lines[i], &info)) {
      if (!in_fence) {
        in_fence = true;
        fence_has_edits = false;
        fence_start = i;
        fence_info = std::string(info);
      } else if (info.empty()) {
        if (!fence_has_edits)
          parsed.code_blocks.push_back(
              {fence_info, join(lines, fence_start + 1, i), static_cast<int>(fence_start + 1)});
        in_fence = false;
      }
    }
  }
  // An unclosed fence (a truncated answer) still counts: compiling it decides.
  if (in_fence && !fence_has_edits)
    parsed.code_blocks.push_back({fence_info, join(lines, fence_start + 1, lines.size()),
                                  static_cast<int>(fence_start + 1)});
  return parsed;
}

std::string strip_reasoning(std::string_view text) {
  std::string out(text);
  for (const std::string_view tag : {"think", "thinking", "reasoning"}) {
    const std::string open = "<" + std::string(tag) + ">";
    const std::string close = "</" + std::string(tag) + ">";
    const auto first_close = out.find(close);
    const auto first_open = out.find(open);
    if (first_close != std::string::npos &&
        (first_open == std::string::npos || first_close < first_open))
      out.erase(0, first_close + close.size());
    for (auto at = out.find(open); at != std::string::npos; at = out.find(open, at)) {
      const auto end = out.find(close, at + open.size());
      out.erase(at, end == std::string::npos ? std::string::npos : end + close.size() - at);
    }
  }
  const auto start = out.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? std::string() : out.substr(start);
}

}  // namespace kev
