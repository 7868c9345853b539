#include "core/endpoint_url.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kev {

namespace {

constexpr std::array<std::string_view, 5> kSecretSuffixes{"key", "token", "secret", "password",
                                                          "passwd"};
constexpr std::array<std::string_view, 6> kSecretNames{"authorization", "bearer",    "credentials",
                                                       "sig",           "signature", "auth"};

std::string squeezed_lower(std::string_view name) {
  std::string out;
  for (const char c : name)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string path_with_suffix(std::string p, std::string_view suffix) {
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!suffix.empty() &&
      (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix) != 0))
    p += suffix;
  return p;
}

}  // namespace

bool names_a_secret(std::string_view name) {
  const std::string s = squeezed_lower(name);
  for (const auto suffix : kSecretSuffixes)
    if (s.size() >= suffix.size() &&
        s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
      return true;
  return std::find(kSecretNames.begin(), kSecretNames.end(), s) != kSecretNames.end();
}

EndpointUrl parse_endpoint_url(std::string_view url) {
  EndpointUrl out;
  std::string_view rest = url;
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
    out.fragment = std::string(rest.substr(hash + 1));
    rest = rest.substr(0, hash);
  }
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    out.query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  const auto scheme = rest.find("://");
  if (scheme == std::string_view::npos) {
    out.path = std::string(rest);
    return out;
  }
  const auto host_start = scheme + 3;
  const auto path_start = rest.find('/', host_start);
  std::string_view authority =
      rest.substr(host_start, path_start == std::string_view::npos ? std::string_view::npos
                                                                   : path_start - host_start);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    out.had_credentials = true;
    authority = authority.substr(at + 1);
  }
  out.scheme_and_host = std::string(rest.substr(0, host_start)) + std::string(authority);
  if (path_start != std::string_view::npos) out.path = std::string(rest.substr(path_start));
  return out;
}

std::string EndpointUrl::with_path_suffix(std::string_view suffix) const {
  std::string url = scheme_and_host + path_with_suffix(path, suffix);
  if (!query.empty()) url += "?" + query;
  return url;
}

std::string EndpointUrl::display(std::string_view suffix) const {
  std::string url = scheme_and_host + path_with_suffix(path, suffix);
  if (query.empty()) return url;
  url += '?';
  std::size_t start = 0;
  bool first = true;
  while (start <= query.size()) {
    auto amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    const std::string_view part = std::string_view(query).substr(start, amp - start);
    const auto eq = part.find('=');
    if (!first) url += '&';
    url += std::string(part.substr(0, eq));
    if (eq != std::string_view::npos) url += "=[redacted]";
    first = false;
    start = amp + 1;
  }
  return url;
}

bool EndpointUrl::query_names_a_secret() const {
  std::size_t start = 0;
  while (start <= query.size()) {
    auto amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    const std::string_view part = std::string_view(query).substr(start, amp - start);
    if (names_a_secret(part.substr(0, part.find('=')))) return true;
    start = amp + 1;
  }
  return false;
}

}  // namespace kev
