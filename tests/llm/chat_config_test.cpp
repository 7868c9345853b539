// Where the client's configuration comes from: defaults, then kernelevo.yaml's `llm:`
// section, then the environment, then the command line.
#include <gtest/gtest.h>

#include <cstdlib>

#include "llm/chat_client.h"

namespace kev::llm {
namespace {

class ChatConfigOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("KERNELEVO_LLM_URL");
    ::unsetenv("KERNELEVO_LLM_MODEL");
  }
  void TearDown() override { SetUp(); }
};

TEST_F(ChatConfigOrder, DefaultsWhenNothingIsGiven) {
  const ChatConfig c = resolve_chat_config({}, {});
  const ChatConfig defaults;
  EXPECT_EQ(c.base_url, "");
  EXPECT_EQ(c.timeout_s, defaults.timeout_s);
  EXPECT_EQ(c.max_tokens, 0);
  EXPECT_EQ(c.temperature, defaults.temperature);
}

TEST_F(ChatConfigOrder, TheProjectFileOverridesTheDefaults) {
  LlmSettings file;
  file.base_url = "http://file/v1";
  file.model = "file-model";
  file.request_timeout_s = 42.0;
  file.connect_timeout_s = 3.0;
  file.max_retries = 1;
  file.max_tokens = 100;
  file.temperature = 0.1;
  const ChatConfig c = resolve_chat_config(file, {});
  EXPECT_EQ(c.base_url, "http://file/v1");
  EXPECT_EQ(c.model, "file-model");
  EXPECT_EQ(c.timeout_s, 42.0);
  EXPECT_EQ(c.connect_timeout_s, 3.0);
  EXPECT_EQ(c.max_retries, 1);
  EXPECT_EQ(c.max_tokens, 100);
  EXPECT_EQ(c.temperature, 0.1);
}

TEST_F(ChatConfigOrder, TheEnvironmentOverridesTheFileAndFlagsOverrideBoth) {
  LlmSettings file;
  file.base_url = "http://file/v1";
  file.model = "file-model";
  file.max_tokens = 100;
  ::setenv("KERNELEVO_LLM_URL", "http://env/v1", 1);
  ::setenv("KERNELEVO_LLM_MODEL", "env-model", 1);
  ChatConfig c = resolve_chat_config(file, {});
  EXPECT_EQ(c.base_url, "http://env/v1");
  EXPECT_EQ(c.model, "env-model");
  EXPECT_EQ(c.max_tokens, 100);  // the environment does not name it: the file's stays

  LlmSettings flags;
  flags.model = "flag-model";
  flags.max_tokens = 7;
  c = resolve_chat_config(file, flags);
  EXPECT_EQ(c.base_url, "http://env/v1");
  EXPECT_EQ(c.model, "flag-model");
  EXPECT_EQ(c.max_tokens, 7);
}

}  // namespace
}  // namespace kev::llm
