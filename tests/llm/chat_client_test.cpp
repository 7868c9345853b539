// The chat-completions client against the scripted server: real HTTP on loopback.
#include "llm/chat_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>
#include <sstream>

#include "scripted_server.h"
#include "support/temp_dir.h"

namespace kev::test {

int unused_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace kev::test

namespace kev::llm {
namespace {

using nlohmann::json;
using test::ScriptedServer;

constexpr const char* kKey = "sk-test-SECRET-0123456789abcdef";

json answer(const std::string& content, int prompt_tokens = 100, int completion_tokens = 20) {
  return {{"content", content},
          {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens}}}};
}

std::unique_ptr<ChatClient> client_for(const std::string& url, double timeout_s = 10.0,
                                       int retries = 3) {
  ChatConfig config;
  config.base_url = url;
  config.model = "scripted-model";
  config.timeout_s = timeout_s;
  config.connect_timeout_s = 2.0;
  config.max_retries = retries;
  config.initial_backoff_s = 0.05;
  auto client = ChatClient::create(config, Secret(kKey));
  EXPECT_TRUE(client.ok());
  return std::move(client.value());
}

#define START_SERVER(var, steps)               \
  test_support::TempDir var##_dir;             \
  ScriptedServer var(steps, var##_dir.path()); \
  if (!var.ok()) GTEST_SKIP() << "python3 not available to run the scripted server"

TEST(ChatClient, SendsTheProtocolAndTotalsUsage) {
  START_SERVER(server, json::array({answer("first", 100, 20), answer("second", 50, 5)}));
  auto client = client_for(server.base_url());
  auto a = client->propose({"sys", "hello"});
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->text, "first");
  EXPECT_EQ(a->usage.prompt_tokens, 100);
  EXPECT_EQ(a->usage.completion_tokens, 20);
  auto b = client->propose({"sys", "again"});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(client->total_usage().prompt_tokens, 150);
  EXPECT_EQ(client->total_usage().completion_tokens, 25);
  EXPECT_EQ(client->total_usage().total(), 175);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto body = json::parse(requests[0]);
  EXPECT_EQ(body["model"], "scripted-model");
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], "sys");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "hello");
  EXPECT_NE(server.headers(0).find("Authorization: present"), std::string::npos);
  for (const auto& r : requests) EXPECT_EQ(r.find(kKey), std::string::npos);
}

TEST(ChatClient, RetriesA429HonouringRetryAfter) {
  START_SERVER(server, json::array({{{"status", 429}, {"headers", {{"Retry-After", "1"}}}},
                                    answer("after the wait")}));
  auto client = client_for(server.base_url());
  const auto start = std::chrono::steady_clock::now();
  auto a = client->propose({"s", "u"});
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->text, "after the wait");
  EXPECT_EQ(client->retries(), 1);
  EXPECT_EQ(client->requests(), 2);
  EXPECT_GE(waited, 1.0);  // Retry-After: 1 honoured (the backoff alone would be 0.05 s)
  EXPECT_LT(waited, 5.0);
}

TEST(ChatClient, RetriesServerErrorsWithBackoffAndGivesUp) {
  START_SERVER(server, json::array({{{"status", 503}}, {{"status", 502}}, answer("ok")}));
  auto client = client_for(server.base_url());
  auto a = client->propose({"s", "u"});
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(client->retries(), 2);

  START_SERVER(failing, json::array({{{"status", 500}}, {{"status", 500}}, {{"status", 500}}}));
  auto limited = client_for(failing.base_url(), 10.0, 2);
  auto b = limited->propose({"s", "u"});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, ExitCode::environment);
  EXPECT_NE(b.error().message.find("HTTP 500 after 3 attempts"), std::string::npos)
      << b.error().message;
  EXPECT_EQ(failing.requests().size(), 3u);
}

TEST(ChatClient, ATimeoutIsAClearError) {
  START_SERVER(server, json::array({{{"delay", 5}, {"content", "too late"}}}));
  auto client = client_for(server.base_url(), 0.5);
  const auto start = std::chrono::steady_clock::now();
  auto a = client->propose({"s", "u"});
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, ExitCode::environment);
  EXPECT_NE(a.error().message.find("no answer from the LLM endpoint"), std::string::npos)
      << a.error().message;
  EXPECT_LT(waited, 3.0);
}

TEST(ChatClient, AnUnreachablePortIsAnEnvironmentError) {
  auto client = client_for("http://127.0.0.1:" + std::to_string(test::unused_port()) + "/v1");
  auto a = client->propose({"s", "u"});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, ExitCode::environment);
  EXPECT_NE(a.error().message.find("cannot reach the LLM endpoint http://127.0.0.1:"),
            std::string::npos)
      << a.error().message;
  EXPECT_EQ(client->retries(), 0);  // refused connections are not retried
}

TEST(ChatClient, AnswersThatAreNotTheProtocolAreClearErrors) {
  START_SERVER(
      server,
      json::array({{{"raw", "<html>hello</html>"}},
                   {{"json", {{"object", "list"}}}},
                   {{"json", {{"choices", json::array()}}}},
                   {{"json", {{"choices", {{{"message", {{"content", nullptr}}}}}}}}},
                   {{"status", 404}, {"body", {{"error", {{"message", "model not found"}}}}}}}));
  auto client = client_for(server.base_url());
  auto a = client->propose({"s", "u"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("the answer is not JSON: \"<html>hello</html>\""),
            std::string::npos)
      << a.error().message;
  auto b = client->propose({"s", "u"});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("no `choices`"), std::string::npos);
  auto c = client->propose({"s", "u"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("no `choices`"), std::string::npos);
  auto d = client->propose({"s", "u"});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("`choices[0].message.content` is missing"), std::string::npos);
  auto e = client->propose({"s", "u"});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("HTTP 404: model not found"), std::string::npos)
      << e.error().message;
  for (const auto* r : {&a, &b, &c, &d, &e}) EXPECT_EQ(r->error().code, ExitCode::environment);
}

TEST(ChatClient, TheKeyNeverAppearsInErrorsEvenWhenTheServerEchoesIt) {
  START_SERVER(
      server,
      json::array(
          {{{"status", 401},
            {"body",
             {{"error", {{"message", std::string("Incorrect API key provided: ") + kKey}}}}}}}));
  auto client = client_for(server.base_url());
  auto a = client->propose({"s", "u"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("refused the credentials (HTTP 401)"), std::string::npos);
  EXPECT_EQ(a.error().to_string().find(kKey), std::string::npos) << a.error().to_string();
  EXPECT_NE(a.error().message.find("[redacted]"), std::string::npos);
}

TEST(ChatClient, AnEchoedKeyIsRedactedBeforeTheExcerptIsCut) {
  // 190 characters, then the key: an excerpt of 200 cut first would keep 10 of its bytes.
  const std::string body = std::string(190, 'x') + kKey + " trailing";
  START_SERVER(server, json::array({{{"status", 400}, {"raw", body}},
                                    {{"raw", std::string(195, 'y') + kKey}}}));
  auto client = client_for(server.base_url());
  for (int i = 0; i < 2; ++i) {
    auto a = client->propose({"s", "u"});
    ASSERT_FALSE(a.ok());
    const std::string text = a.error().to_string();
    for (std::size_t n = 0; n + 6 <= std::string(kKey).size(); ++n)
      EXPECT_EQ(text.find(std::string(kKey).substr(n, 6)), std::string::npos)
          << "part of the key at " << n << " in: " << text;
  }
}

TEST(ChatClient, UsageCountsOutsideZeroToABillionAreProtocolErrors) {
  START_SERVER(
      server,
      json::array(
          {{{"content", "a"}, {"usage", {{"prompt_tokens", -1000000}, {"completion_tokens", 5}}}},
           {{"content", "b"}, {"usage", {{"prompt_tokens", 1e300}, {"completion_tokens", 5}}}},
           {{"content", "c"}, {"usage", {{"prompt_tokens", 3.5}, {"completion_tokens", 5}}}},
           {{"content", "d"}, {"usage", {{"prompt_tokens", 12}, {"completion_tokens", 30}}}}}));
  auto client = client_for(server.base_url());
  for (int i = 0; i < 3; ++i) {
    auto a = client->propose({"s", "u"});
    ASSERT_FALSE(a.ok()) << "answer " << i << " was accepted";
    EXPECT_NE(a.error().message.find("`usage` token counts must be whole numbers"),
              std::string::npos)
        << a.error().message;
  }
  auto d = client->propose({"s", "u"});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(client->total_usage().total(), 42);
}

TEST(ChatClient, AQueryStringKeepsItsPlaceAndItsValuesStayOutOfMessages) {
  START_SERVER(server, json::array({answer("ok")}));
  auto client = client_for(server.base_url() + "?api-version=1&key=sk-QUERY-SECRET");
  EXPECT_EQ(client->endpoint().find("sk-QUERY-SECRET"), std::string::npos) << client->endpoint();
  EXPECT_NE(client->endpoint().find("/v1/chat/completions?api-version=[redacted]&key=[redacted]"),
            std::string::npos)
      << client->endpoint();
  auto a = client->propose({"s", "u"});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_NE(server.headers(0).find("path: /v1/chat/completions?api-version=1&key=sk-QUERY-SECRET"),
            std::string::npos)
      << server.headers(0);

  const int port = test::unused_port();
  auto down =
      client_for("http://127.0.0.1:" + std::to_string(port) + "/v1?key=sk-QUERY-SECRET", 2.0, 0);
  auto e = down->propose({"s", "u"});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().to_string().find("sk-QUERY-SECRET"), std::string::npos)
      << e.error().to_string();
}

TEST(ChatClient, ConfigurationErrors) {
  EXPECT_FALSE(ChatClient::create({}, Secret()).ok());
  ChatConfig no_model;
  no_model.base_url = "http://127.0.0.1:1/v1";
  auto e = ChatClient::create(no_model, Secret());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("KERNELEVO_LLM_MODEL"), std::string::npos);
  ChatConfig file_url;
  file_url.base_url = "file:///etc/passwd";
  file_url.model = "m";
  EXPECT_FALSE(ChatClient::create(file_url, Secret()).ok());
  ChatConfig with_user;
  with_user.base_url = "https://user:pw@example.com/v1/";
  with_user.model = "m";
  auto c = ChatClient::create(with_user, Secret());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value()->endpoint(), "https://example.com/v1/chat/completions");
}

TEST(ChatClient, KeyComesOnlyFromTheEnvironmentAndIsRemovedFromIt) {
  setenv("OPENAI_API_KEY", "sk-fallback", 1);
  unsetenv("KERNELEVO_LLM_API_KEY");
  {
    Secret key = take_api_key_from_environment();
    EXPECT_EQ(key.reveal(), "sk-fallback");
    EXPECT_EQ(std::getenv("OPENAI_API_KEY"), nullptr);  // children cannot inherit it
  }
  setenv("OPENAI_API_KEY", "sk-fallback", 1);
  setenv("KERNELEVO_LLM_API_KEY", "sk-preferred", 1);
  Secret key = take_api_key_from_environment();
  EXPECT_EQ(key.reveal(), "sk-preferred");
  EXPECT_EQ(std::getenv("KERNELEVO_LLM_API_KEY"), nullptr);
  EXPECT_EQ(std::getenv("OPENAI_API_KEY"), nullptr);
  EXPECT_EQ(key.redact("a sk-preferred b"), "a [redacted] b");
}

// /proc/self/environ shows the environment the process started with, whatever unsetenv
// did: the death test's child is a fresh process started with the key in that block.
TEST(ChatClientDeathTest, TheKeyLeavesProcSelfEnvironToo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Not overwritten in the child, whose initial environment already holds it.
  setenv("KERNELEVO_LLM_API_KEY", "sk-INITIAL-ENV-CANARY", 0);
  EXPECT_EXIT(
      {
        const Secret key = take_api_key_from_environment();
        std::ifstream in("/proc/self/environ", std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        const std::string environ_text = s.str();
        const bool started_with_it = key.reveal() == "sk-INITIAL-ENV-CANARY" &&
                                     environ_text.find("PATH=") != std::string::npos;
        std::exit(started_with_it && environ_text.find("INITIAL-ENV-CANARY") == std::string::npos
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
  unsetenv("KERNELEVO_LLM_API_KEY");
}

TEST(ChatClient, EnvironmentOverridesUrlAndModel) {
  setenv("KERNELEVO_LLM_URL", "http://localhost:11434/v1", 1);
  setenv("KERNELEVO_LLM_MODEL", "qwen2.5-coder:32b", 1);
  ChatConfig config;
  config.base_url = "https://api.openai.com/v1";
  config.model = "gpt-4o";
  apply_environment(config);
  EXPECT_EQ(config.base_url, "http://localhost:11434/v1");
  EXPECT_EQ(config.model, "qwen2.5-coder:32b");
  unsetenv("KERNELEVO_LLM_URL");
  unsetenv("KERNELEVO_LLM_MODEL");
}

}  // namespace
}  // namespace kev::llm
