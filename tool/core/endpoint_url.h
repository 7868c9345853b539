#pragma once
// An endpoint URL taken apart just enough to keep its secrets out of sight: credentials may
// sit before the host ("user:key@") or in the query ("?key=..."). The request goes to the URL
// as given, with a path suffix added before the query; messages show it without them.
#include <string>
#include <string_view>

namespace kev {

struct EndpointUrl {
  std::string scheme_and_host;   // "https://api.example.com:8443", credentials removed
  bool had_credentials = false;  // "user:password@" stood before the host
  std::string path;              // "/v1"
  std::string query;             // "api-version=2024-06-01&key=..." (no '?'), may be empty
  std::string fragment;          // dropped from requests

  // The URL with `suffix` appended to the path unless the path already ends with it.
  [[nodiscard]] std::string with_path_suffix(std::string_view suffix) const;
  // For messages: no credentials, every query value replaced by "[redacted]".
  [[nodiscard]] std::string display(std::string_view suffix = {}) const;
  // Whether a query parameter's name says it carries a secret (key, api_key, token, ...).
  [[nodiscard]] bool query_names_a_secret() const;
};

// Never fails: text without "://" is all path.
[[nodiscard]] EndpointUrl parse_endpoint_url(std::string_view url);

// How people name credentials (api_key, apiKey, OPENAI_API_KEY, access_token, sig,
// client_secret...): compared without case, '-' and '_'.
[[nodiscard]] bool names_a_secret(std::string_view name);

}  // namespace kev
