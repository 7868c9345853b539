#include "llm/chat_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/endpoint_url.h"

namespace kev::llm {

namespace {

constexpr std::size_t kMaxAnswerBytes = 16u << 20;
constexpr std::string_view kChatPath = "/chat/completions";

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Exchange {
  std::string body;
  std::optional<double> retry_after_s;
  bool too_big = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::size_t n = size * count;
  if (ex->body.size() + n > kMaxAnswerBytes) {
    ex->too_big = true;
    return 0;  // aborts the transfer
  }
  ex->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::size_t n = size * count;
  std::string line(data, n);
  // A new response (after a redirect or 100-continue) starts with its status line.
  if (line.rfind("HTTP/", 0) == 0) ex->retry_after_s.reset();
  const auto colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name != "retry-after") return n;
  const std::string value = line.substr(colon + 1);
  char* end = nullptr;
  const double seconds = std::strtod(value.c_str(), &end);
  // Only delay-seconds; an HTTP-date falls back to the exponential backoff.
  if (end != value.c_str() && std::isfinite(seconds) && seconds >= 0) ex->retry_after_s = seconds;
  return n;
}

// Callers redact `text` first: cutting first could leave part of an echoed key.
std::string excerpt(const std::string& text, std::size_t max = 200) {
  std::string out = text.substr(0, max);
  for (auto& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text.size() > max ? out + "..." : out;
}

// The server's own error message, when it sent the OpenAI error shape.
std::string server_message(const std::string& body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_object() && json.contains("error")) {
    const auto& e = json["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      return excerpt(e["message"].get<std::string>(), 400);
    if (e.is_string()) return excerpt(e.get<std::string>(), 400);
  }
  return excerpt(body);
}

// A token count the budget can trust: absent is 0, anything but a whole number from 0 to
// 10^9 is the server breaking the protocol (a negative count would reset --token-budget).
constexpr std::int64_t kMaxTokensPerAnswer = 1'000'000'000;
std::optional<std::int64_t> usage_field(const nlohmann::json& usage, const char* name) {
  if (!usage.is_object() || !usage.contains(name)) return 0;
  const auto& v = usage[name];
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= kMaxTokensPerAnswer)
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
      v.get<std::int64_t>() <= kMaxTokensPerAnswer)
    return v.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace

void apply_environment(ChatConfig& config) {
  if (const char* url = std::getenv("KERNELEVO_LLM_URL"); url && *url) config.base_url = url;
  if (const char* model = std::getenv("KERNELEVO_LLM_MODEL"); model && *model) config.model = model;
}

void apply_settings(ChatConfig& config, const LlmSettings& settings) {
  if (settings.base_url) config.base_url = *settings.base_url;
  if (settings.model) config.model = *settings.model;
  if (settings.request_timeout_s) config.timeout_s = *settings.request_timeout_s;
  if (settings.connect_timeout_s) config.connect_timeout_s = *settings.connect_timeout_s;
  if (settings.max_retries) config.max_retries = *settings.max_retries;
  if (settings.max_tokens) config.max_tokens = *settings.max_tokens;
  if (settings.temperature) config.temperature = *settings.temperature;
}

ChatConfig resolve_chat_config(const LlmSettings& project_file, const LlmSettings& command_line) {
  ChatConfig config;
  apply_settings(config, project_file);
  apply_environment(config);
  apply_settings(config, command_line);
  return config;
}

Result<std::unique_ptr<ChatClient>> ChatClient::create(ChatConfig config, Secret api_key) {
  if (config.base_url.empty())
    return make_error(
        "no LLM endpoint configured: set KERNELEVO_LLM_URL (or llm.base_url in "
        "kernelevo.yaml, or --url), e.g. https://api.openai.com/v1");
  if (config.base_url.rfind("http://", 0) != 0 && config.base_url.rfind("https://", 0) != 0)
    return make_error("LLM endpoint URL must start with http:// or https://: " +
                      api_key.redact(parse_endpoint_url(config.base_url).display()));
  if (config.model.empty())
    return make_error(
        "no LLM model configured: set KERNELEVO_LLM_MODEL (or llm.model in "
        "kernelevo.yaml, or --model)");
  return std::unique_ptr<ChatClient>(new ChatClient(std::move(config), std::move(api_key)));
}

ChatClient::ChatClient(ChatConfig config, Secret api_key)
    : config_(std::move(config)), api_key_(std::move(api_key)) {
  init_curl_once();
  const EndpointUrl parts = parse_endpoint_url(config_.base_url);
  url_ = parts.with_path_suffix(kChatPath);
  shown_url_ = api_key_.redact(parts.display(kChatPath));
}

ChatClient::~ChatClient() = default;

std::string ChatClient::endpoint() const { return shown_url_; }

Result<Proposal> ChatClient::propose(const Prompt& prompt) {
  nlohmann::json request = {
      {"model", config_.model},
      {"messages", nlohmann::json::array({{{"role", "system"}, {"content", prompt.system}},
                                          {{"role", "user"}, {"content", prompt.user}}})},
      {"stream", false},
  };
  if (config_.temperature >= 0) request["temperature"] = config_.temperature;
  if (config_.max_tokens > 0) request["max_tokens"] = config_.max_tokens;
  const std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  const auto fail = [&](const std::string& message) {
    return make_error(api_key_.redact(message), SourceLocation{}, ExitCode::environment);
  };
  const std::string where = endpoint();

  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return fail("cannot initialise libcurl");
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip for big prompts
  if (!api_key_.empty()) {
    std::string auth = "Authorization: Bearer " + api_key_.reveal();
    headers = curl_slist_append(headers, auth.c_str());
    for (auto& c : auth) *static_cast<volatile char*>(&c) = 0;
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers,
                                                                          curl_slist_free_all);

  for (int attempt = 0;; ++attempt) {
    Exchange ex;
    char curl_error[CURL_ERROR_SIZE] = {};
    CURL* h = curl.get();
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url_.c_str());
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, header_list.get());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::max(1.0, config_.connect_timeout_s * 1000)));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max(1.0, config_.timeout_s * 1000)));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &ex);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &ex);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_error);
    // Never follow redirects: the Authorization header must not travel to another host.
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);

    ++requests_;
    const CURLcode rc = curl_easy_perform(h);
    const bool attempts_left = attempt < config_.max_retries;
    const double backoff =
        std::min(config_.max_backoff_s, config_.initial_backoff_s * std::pow(2.0, attempt));
    const auto retry = [&](double seconds) {
      ++retries_;
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, seconds)));
    };
    // Whatever the server sent is shown only with the key taken out (before any excerpt).
    ex.body = api_key_.redact(std::move(ex.body));
    if (rc != CURLE_OK) {
      const std::string detail = curl_error[0] ? curl_error : curl_easy_strerror(rc);
      if (ex.too_big)
        return fail("the LLM endpoint " + where + " sent an answer larger than 16 MiB");
      if (rc == CURLE_OPERATION_TIMEDOUT)
        return fail("no answer from the LLM endpoint " + where + " within the timeout (" + detail +
                    ")");
      if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
          rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_SSL_CONNECT_ERROR ||
          rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_UNSUPPORTED_PROTOCOL)
        return fail("cannot reach the LLM endpoint " + where + ": " + detail);
      // A dropped connection or an empty reply: transient, worth another attempt.
      if (attempts_left) {
        retry(backoff);
        continue;
      }
      return fail("the LLM endpoint " + where + " failed after " + std::to_string(attempt + 1) +
                  " attempts: " + detail);
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (status == 429 || status >= 500) {
      if (attempts_left) {
        retry(ex.retry_after_s ? std::min(*ex.retry_after_s, config_.max_backoff_s) : backoff);
        continue;
      }
      return fail("the LLM endpoint " + where + " answered HTTP " + std::to_string(status) +
                  " after " + std::to_string(attempt + 1) +
                  " attempts: " + server_message(ex.body));
    }
    if (status == 401 || status == 403)
      return fail("the LLM endpoint " + where + " refused the credentials (HTTP " +
                  std::to_string(status) +
                  "): check KERNELEVO_LLM_API_KEY / OPENAI_API_KEY: " + server_message(ex.body));
    if (status != 200)
      return fail("the LLM endpoint " + where + " answered HTTP " + std::to_string(status) + ": " +
                  server_message(ex.body));

    const auto json = nlohmann::json::parse(ex.body, nullptr, false);
    const std::string not_protocol =
        "the LLM endpoint " + where + " did not answer with an OpenAI chat completion: ";
    if (json.is_discarded())
      return fail(not_protocol + "the answer is not JSON: \"" + excerpt(ex.body) + "\"");
    if (!json.is_object() || !json.contains("choices") || !json["choices"].is_array() ||
        json["choices"].empty())
      return fail(not_protocol + "no `choices` in the answer");
    const auto& choice = json["choices"][0];
    if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object() ||
        !choice["message"].contains("content") || !choice["message"]["content"].is_string())
      return fail(not_protocol + "`choices[0].message.content` is missing or not text");

    Proposal proposal;
    proposal.text = choice["message"]["content"].get<std::string>();
    if (json.contains("usage")) {
      const auto prompt_tokens = usage_field(json["usage"], "prompt_tokens");
      const auto completion_tokens = usage_field(json["usage"], "completion_tokens");
      if (!prompt_tokens || !completion_tokens)
        return fail(not_protocol +
                    "`usage` token counts must be whole numbers from 0 to 1000000000");
      proposal.usage.prompt_tokens = *prompt_tokens;
      proposal.usage.completion_tokens = *completion_tokens;
    }
    usage_ += proposal.usage;
    return proposal;
  }
}

}  // namespace kev::llm
