#include "io/compile_settings.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

TEST(CompileSettings, LinesFromCMakeBecomeJsonAndBack) {
  const std::string lines =
      "source\t/p/src/softmax.cu\ntarget\tlib\ncompiler\t/usr/local/cuda/bin/nvcc\n"
      "compiler_launcher\t\ncuda_architectures\t80;90\ncuda_standard\t17\n"
      "include\t/p/src\ninclude\t/p/with space\ndefine\tQ=\"s\"\ndefine\tFAST\n"
      "option\t--use_fast_math\noption\t-Xcompiler=-Wall,-Wextra\n";
  auto parsed = parse_compile_settings_lines(lines, "settings.txt");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->include_dirs, (std::vector<std::string>{"/p/src", "/p/with space"}));
  EXPECT_EQ(parsed->defines, (std::vector<std::string>{"Q=\"s\"", "FAST"}));
  EXPECT_EQ(parsed->options,
            (std::vector<std::string>{"--use_fast_math", "-Xcompiler=-Wall,-Wextra"}));
  const std::string json = compile_settings_json(*parsed);
  EXPECT_NE(json.find("\"Q=\\\"s\\\"\""), std::string::npos) << json;
  auto back = parse_compile_settings_json(json, "settings.json");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->source, "/p/src/softmax.cu");
  EXPECT_EQ(back->cuda_architectures, "80;90");
  EXPECT_EQ(back->defines, parsed->defines);
  EXPECT_EQ(back->options, parsed->options);
}

TEST(CompileSettings, EmptyListsAndUnknownKeys) {
  auto empty = parse_compile_settings_lines("source\t/a.cu\ninclude\t\n", "s.txt");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->include_dirs.empty());
  auto bad = parse_compile_settings_lines("source\t/a.cu\nlinker\tld\n", "s.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "s.txt:2:1: error: unknown key 'linker'");
  EXPECT_FALSE(parse_compile_settings_lines("no tab here\n", "s.txt").ok());
  EXPECT_FALSE(
      parse_compile_settings_json("{\"schema_version\": 2, \"source\": \"a\"}", "s.json").ok());
  EXPECT_FALSE(parse_compile_settings_json("[", "s.json").ok());
}

// A schema_version too large for an int was undefined behaviour to compare (found by the
// same review as the trace and report readers' crashes); it is refused like any other.
TEST(CompileSettings, ASchemaVersionOfAnotherKindIsRefused) {
  for (const char* version : {"1e300", "1.0", "\"1\"", "4294967297", "-1"}) {
    const std::string text =
        std::string("{\"schema_version\": ") + version + ", \"source\": \"a\"}";
    EXPECT_FALSE(parse_compile_settings_json(text, "s.json").ok()) << text;
  }
}

}  // namespace
}  // namespace kev
