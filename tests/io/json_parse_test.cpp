#include "io/json_parse.h"

#include <gtest/gtest.h>

#include <string>

#include "support/cpu_time.h"

namespace kev::io {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

TEST(JsonParse, BuildsTheSameDocumentAsNlohmann) {
  const std::string text =
      R"({"b": [1, -2, 3.5, "x", true, null, {"k": []}], "a": {"z": 1, "y": {"x": "\"q\""}}})";
  auto parsed = parse_untrusted_json<Json>(text, {"f.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(*parsed, Json::parse(text));
  auto ordered = parse_untrusted_json<Ordered>(text, {"f.json"});
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->dump(), Ordered::parse(text).dump());  // members keep their order
  EXPECT_EQ(ordered->begin().key(), "b");
}

TEST(JsonParse, ADuplicateKeyIsRefusedWhereItStandsWithItsPath) {
  const std::string text =
      "{\"dims\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\", \"name\": \"c\"}]}";
  auto parsed = parse_untrusted_json<Ordered>(text, {"t.jsonl", 7});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().to_string(), "t.jsonl:9:17: error: duplicate key 'name' in dims[1]");
  // An escaped quote in the key does not hide where it starts.
  auto escaped = parse_untrusted_json<Json>(R"({"a\"b": 1, "a\"b": 2})", {"e.json"});
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.error().to_string(), "e.json:1:13: error: duplicate key 'a\"b'");
  // The same key in different objects is no duplicate.
  EXPECT_TRUE(parse_untrusted_json<Json>(R"({"a": {"k": 1}, "b": {"k": 2}})", {"ok.json"}).ok());
}

TEST(JsonParse, DeepNestingIsRefusedAtOnce) {
  const std::string text(1u << 20, '[');
  const test_support::ThreadCpuTimer timer;
  auto parsed = parse_untrusted_json<Json>(text, {"deep.json"});
  EXPECT_LT(timer.seconds(), 1.0);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().to_string(), "deep.json:1:65: error: nested deeper than 64 levels");
  std::string ok_depth = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(parse_untrusted_json<Json>(ok_depth, {"ok.json"}).ok());
}

TEST(JsonParse, SyntaxErrorsNameLineAndColumnAndNeverRepeatAString) {
  const std::string secret = "sk-live-0123456789abcdefghijklmnopqrstuvwxyz";
  const std::vector<std::pair<std::string, std::string>> cases = {
      // A control character inside the string: the whole token would be the secret.
      {"{\n  \"key\": \"" + secret + "\n\"}",
       "f.json:2:55: error: not valid JSON: syntax error while parsing value - invalid string: "
       "control character U+000A (LF) must be escaped to \\u000A or \\n"},
      // A bad literal after a string: the lexer's token starts with that string.
      {"{\"key\": \"" + secret + "\", oops}",
       "f.json:1:57: error: not valid JSON: syntax error while parsing object key - invalid "
       "literal; last read: ', o'; expected string literal"},
      // A string where none belongs.
      {"{\"key\": 1 \"" + secret + "\"}",
       "f.json:1:56: error: not valid JSON: syntax error while parsing object - unexpected "
       "string literal; expected '}'"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto parsed = parse_untrusted_json<Json>(cases[i].first, {"f.json"});
    ASSERT_FALSE(parsed.ok()) << i;
    EXPECT_EQ(parsed.error().to_string(), cases[i].second) << i;
    EXPECT_EQ(parsed.error().to_string().find("sk-live"), std::string::npos) << i;
  }
  // No string involved: the excerpt is cut to its last 40 characters.
  auto number = parse_untrusted_json<Json>("[" + std::string(100, '1') + ".x]", {"f.json"});
  ASSERT_FALSE(number.ok());
  EXPECT_EQ(number.error().to_string(),
            "f.json:1:103: error: not valid JSON: syntax error while parsing value - invalid "
            "number; expected digit after '.'; last read: '..." +
                std::string(38, '1') + ".x'");
}

TEST(JsonParse, ManyElementsParseInLinearTime) {
  // nlohmann's callback parser took 30 s for 1 MiB of this, and grew with the square.
  std::string text = "{\"source\": [";
  while (text.size() < (4u << 20)) text += "{}, ";
  text += "{}]}";
  const test_support::ThreadCpuTimer timer;
  auto parsed = parse_untrusted_json<Json>(text, {"big.json"});
  EXPECT_LT(timer.seconds(), 3.0);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->at("source").size(), (text.size() - 14) / 4 + 1);
}

TEST(JsonParse, ExcerptsAreShortAndPrintable) {
  EXPECT_EQ(excerpt("abc"), "'abc'");
  EXPECT_EQ(excerpt("a\nb"), "'a?b'");
  EXPECT_EQ(excerpt(std::string(50, 'x')), "'" + std::string(40, 'x') + "...'");
}

}  // namespace
}  // namespace kev::io
