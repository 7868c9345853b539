#include "io/llm_settings.h"

#include <gtest/gtest.h>

#include "io/spec_yaml.h"

namespace kev {
namespace {

TEST(LlmSettings, ReadsEverySetting) {
  auto s = parse_llm_settings(
      "kernels: []\n"
      "llm:\n"
      "  base_url: http://localhost:8000/v1\n"
      "  model: Qwen/Qwen2.5-Coder-32B-Instruct\n"
      "  request_timeout: 10m\n"
      "  connect_timeout: 5\n"
      "  max_retries: 2\n"
      "  max_tokens: 8192\n"
      "  temperature: 0.2\n",
      "kernelevo.yaml");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->base_url, "http://localhost:8000/v1");
  EXPECT_EQ(s->model, "Qwen/Qwen2.5-Coder-32B-Instruct");
  EXPECT_EQ(s->request_timeout_s, 600.0);
  EXPECT_EQ(s->connect_timeout_s, 5.0);
  EXPECT_EQ(s->max_retries, 2);
  EXPECT_EQ(s->max_tokens, 8192);
  EXPECT_EQ(s->temperature, 0.2);
}

TEST(LlmSettings, AbsentSectionOrFileGivesNothing) {
  auto s = parse_llm_settings("kernels: []\n", "kernelevo.yaml");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->base_url || s->model || s->request_timeout_s || s->max_tokens || s->temperature);
  auto list = parse_llm_settings("- id: a\n", "kernelevo.yaml");  // the list form has no llm:
  ASSERT_TRUE(list.ok());
  auto missing = read_llm_settings("/nonexistent/kernelevo.yaml");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->base_url);
}

TEST(LlmSettings, AKeyInTheFileIsAnErrorNamingFileAndLineNeverTheKey) {
  for (const std::string name :
       {"api_key", "API-KEY", "apiKey", "token", "openai_api_key", "password", "client_secret"}) {
    auto s = parse_llm_settings("llm:\n  model: m\n  " + name + ": sk-SECRET-123\n",
                                "proj/kernelevo.yaml");
    ASSERT_FALSE(s.ok()) << name;
    const std::string text = s.error().to_string();
    EXPECT_EQ(text.rfind("proj/kernelevo.yaml:3:3: error: llm." + name +
                             ": an API key must not be written in kernelevo.yaml",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("set KERNELEVO_LLM_API_KEY (or OPENAI_API_KEY) in the environment"),
              std::string::npos);
    EXPECT_EQ(text.find("sk-SECRET-123"), std::string::npos);
  }
}

TEST(LlmSettings, CredentialsInTheUrlAreRefusedToo) {
  auto s = parse_llm_settings("llm:\n  base_url: https://me:sk-SECRET@api.example.com/v1\n",
                              "kernelevo.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where.line, 2);
  EXPECT_EQ(s.error().to_string().find("sk-SECRET"), std::string::npos);
  for (const char* url : {"https://api.example.com/v1?api_key=sk-SECRET",
                          "https://api.example.com/v1?x=1&access-token=sk-SECRET",
                          "https://api.example.com/v1?sig=sk-SECRET#frag"}) {
    auto q = parse_llm_settings(std::string("llm:\n  base_url: ") + url + "\n", "kernelevo.yaml");
    ASSERT_FALSE(q.ok()) << url;
    EXPECT_EQ(q.error().where.line, 2);
    EXPECT_EQ(q.error().to_string().find("sk-SECRET"), std::string::npos);
  }
  EXPECT_TRUE(parse_llm_settings("llm:\n  base_url: https://h/v1?api-version=2024-06-01\n",
                                 "kernelevo.yaml")
                  .ok());
  // An '@' in the path is not a credential.
  EXPECT_TRUE(parse_llm_settings("llm:\n  base_url: http://h/v1/@x\n", "kernelevo.yaml").ok());
}

TEST(LlmSettings, BadValuesAndUnknownKeysAreErrorsWithLines) {
  const std::pair<std::string, std::string> cases[] = {
      {"llm:\n  temperature: 3\n",
       "kernelevo.yaml:2:16: error: llm.temperature: expected a number from 0 to 2"},
      {"llm:\n  max_tokens: -1\n",
       "kernelevo.yaml:2:15: error: llm.max_tokens: expected an integer from 1"},
      {"llm:\n  request_timeout: soon\n",
       "kernelevo.yaml:2:20: error: llm.request_timeout: expected a positive"},
      {"llm:\n  model: [a, b]\n",
       "kernelevo.yaml:2:10: error: llm.model: expected a non-empty string"},
      {"llm:\n  modle: m\n",
       "kernelevo.yaml:2:3: error: unknown key 'llm.modle'; expected one of base_url, model"},
      {"llm: openai\n", "kernelevo.yaml:1:6: error: llm: expected a map of settings"},
  };
  for (const auto& [yaml, expected] : cases) {
    auto s = parse_llm_settings(yaml, "kernelevo.yaml");
    ASSERT_FALSE(s.ok()) << yaml;
    EXPECT_EQ(s.error().to_string().rfind(expected, 0), 0u) << s.error().to_string();
  }
}

TEST(LlmSettings, TheProjectFileMayHoldLlmBesideOrInsteadOfKernels) {
  const SpecParse only_llm = parse_project_yaml("llm:\n  model: m\n", "kernelevo.yaml");
  EXPECT_TRUE(only_llm.errors.empty()) << only_llm.errors[0].to_string();
  EXPECT_TRUE(only_llm.specs.empty());
  const SpecParse neither = parse_project_yaml("other: 1\n", "kernelevo.yaml");
  ASSERT_FALSE(neither.errors.empty());
  EXPECT_NE(neither.errors[0].message.find("expected one of kernels, llm"), std::string::npos)
      << neither.errors[0].message;
}

}  // namespace
}  // namespace kev
