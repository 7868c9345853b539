#include "core/secret_shapes.h"

#include <array>

#include "core/endpoint_url.h"

namespace kev {

namespace {

constexpr std::string_view kRedacted = "[redacted]";

bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}
bool name_char(char c) { return token_char(c) || c == '.'; }

std::size_t token_end(std::string_view s, std::size_t i, bool dots = false) {
  while (i < s.size() && (token_char(s[i]) || (dots && s[i] == '.'))) ++i;
  return i;
}

struct Prefix {
  std::string_view text;
  std::size_t min_rest;  // characters after the prefix for it to count as a token
};
constexpr std::array<Prefix, 16> kPrefixes{{{"sk-", 16},
                                            {"ghp_", 20},
                                            {"gho_", 20},
                                            {"ghs_", 20},
                                            {"ghu_", 20},
                                            {"ghr_", 20},
                                            {"github_pat_", 20},
                                            {"glpat-", 16},
                                            {"xoxb-", 10},
                                            {"xoxp-", 10},
                                            {"xoxa-", 10},
                                            {"AKIA", 16},
                                            {"ASIA", 16},
                                            {"AIza", 30},
                                            {"hf_", 20},
                                            {"eyJ", 20}}};

}  // namespace

std::string scrub_secret_shapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const bool boundary = i == 0 || !token_char(s[i - 1]);
    if (boundary) {
      bool replaced = false;
      for (const auto& p : kPrefixes) {
        if (s.compare(i, p.text.size(), p.text) != 0) continue;
        const std::size_t end = token_end(s, i + p.text.size(), p.text == "eyJ");
        if (end - i - p.text.size() < p.min_rest) continue;
        out += kRedacted;
        i = end;
        replaced = true;
        break;
      }
      if (replaced) continue;
      if (s.compare(i, 7, "Bearer ") == 0 || s.compare(i, 7, "bearer ") == 0) {
        out += s.substr(i, 7);
        i += 7;
        const std::size_t end = token_end(s, i, true);
        if (end > i) {
          out += kRedacted;
          i = end;
        }
        continue;
      }
      if (s.compare(i, 11, "-----BEGIN ") == 0) {
        const auto close = s.find("-----END ", i + 11);
        const auto stop = close == std::string_view::npos ? s.size() : s.find('\n', close);
        out += kRedacted;
        i = stop == std::string_view::npos ? s.size() : stop;
        continue;
      }
      // NAME=value, NAME: value, "NAME": "value"
      std::size_t j = i;
      while (j < s.size() && name_char(s[j])) ++j;
      if (j > i) {
        const std::string_view name = s.substr(i, j - i);
        std::size_t k = j;
        if (k < s.size() && s[k] == '"') ++k;
        while (k < s.size() && s[k] == ' ') ++k;
        if (k < s.size() && (s[k] == '=' || s[k] == ':') && names_a_secret(name)) {
          // NAME=value ends at a blank; NAME: value (a header, YAML) at the line's end.
          const bool to_line_end = s[k] == ':';
          ++k;
          while (k < s.size() && (s[k] == ' ' || s[k] == '"' || s[k] == '\'')) ++k;
          std::size_t v = k;
          while (v < s.size() && s[v] != '\n' && s[v] != '"' && s[v] != '\'' &&
                 (to_line_end || (s[v] != ' ' && s[v] != ',' && s[v] != ';')))
            ++v;
          out += s.substr(i, k - i);
          if (v > k) out += kRedacted;
          i = v;
          continue;
        }
        out += name;
        i = j;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string scrubbed_excerpt(std::string_view text, std::size_t max_chars) {
  std::string clean = scrub_secret_shapes(text);
  if (clean.size() <= max_chars) return clean;
  const std::size_t cut = clean.size() - max_chars;
  clean.resize(max_chars);
  return clean + "\n[... " + std::to_string(cut) + " more characters]";
}

}  // namespace kev
