#include "core/macro_guards.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

const std::set<std::string, std::less<>> kNames{"BLOCK", "ITEMS"};

TEST(MacroGuards, AnUnguardedDefinitionIsFoundWithItsLine) {
  const auto found = unguarded_defines("// launcher\n#define BLOCK 256\n#define OTHER 1\n", kNames);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "BLOCK");
  EXPECT_EQ(found[0].line, 2);
}

TEST(MacroGuards, IfndefAndIfNotDefinedGuards) {
  EXPECT_TRUE(unguarded_defines("#ifndef BLOCK\n#define BLOCK 256\n#endif\n"
                                "#if !defined(ITEMS)\n#  define ITEMS 4\n#endif\n",
                                kNames)
                  .empty());
  EXPECT_TRUE(unguarded_defines("#if !defined BLOCK\n#define BLOCK 256\n#endif\n", kNames).empty());
}

TEST(MacroGuards, TheElseOfAGuardAnotherNamesGuardOrAfterEndifAreNotGuarded) {
  const auto found = unguarded_defines(
      "#ifndef BLOCK\n#define BLOCK 1\n#else\n#define BLOCK 2\n#endif\n"  // line 4
      "#ifndef ITEMS\n#define BLOCK 3\n#endif\n"                          // line 7
      "#define ITEMS 4\n",                                                // line 9
      kNames);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].line, 4);
  EXPECT_EQ(found[1].line, 7);
  EXPECT_EQ(found[2].line, 9);
}

TEST(MacroGuards, CommentsAndStringsAreNoDirectives) {
  EXPECT_TRUE(
      unguarded_defines("/*\n#define BLOCK 1\n*/\nconst char* s = \"#define BLOCK 2\";\n", kNames)
          .empty());
}

TEST(MacroGuards, QuotedIncludesOnly) {
  EXPECT_EQ(quoted_includes("#include <array>\n#include \"config.h\"\n  # include \"a/b.h\"\n"),
            (std::vector<std::string>{"config.h", "a/b.h"}));
}

}  // namespace
}  // namespace kev
