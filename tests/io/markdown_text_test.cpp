// Untrusted strings in Markdown: shown as written, never read as markup.
#include "io/markdown_text.h"

#include <gtest/gtest.h>

namespace kev::io {
namespace {

TEST(MarkdownText, MarkupIsEscaped) {
  EXPECT_EQ(markdown_text("[x](https://e.example) ![i](https://e.example/t.png) [r][1]"),
            "[x\\](https://e.example) ![i\\](https://e.example/t.png) [r\\][1]");
  EXPECT_EQ(markdown_text("<img src=x> </b> <!-- c --> <?x> <https://e.example>"),
            "\\<img src=x> \\</b> \\<!-- c --> \\<?x> \\<https://e.example>");
  EXPECT_EQ(markdown_text("*a* ~b~ `c` $d$ &lt; &#x3c; \\e"),
            "\\*a\\* \\~b\\~ \\`c\\` \\$d\\$ \\&lt; \\&#x3c; \\\\e");
  EXPECT_EQ(markdown_text("a | b"), "a \\| b");
}

TEST(MarkdownText, PunctuationThatStartsNothingStaysReadable) {
  EXPECT_EQ(markdown_text("y[17] = 1.5, a < b, a > b, a & b, [x] (y)"),
            "y[17] = 1.5, a < b, a > b, a & b, [x] (y)");
}

TEST(MarkdownText, UnderscoresEscapedOnlyWhereTheyCouldEmphasise) {
  EXPECT_EQ(markdown_text("SOFTMAX_BLOCK=512 sm_90"), "SOFTMAX_BLOCK=512 sm_90");
  EXPECT_EQ(markdown_text("_x_ __init__"), "\\_x\\_ \\_\\_init\\_\\_");
}

TEST(MarkdownText, NoMentionsNoIssueReferences) {
  EXPECT_EQ(markdown_text("@octocat see #12, not #x"), "@&#8203;octocat see #&#8203;12, not #x");
}

TEST(MarkdownText, StaysOnItsLineAndHoldsNoWorkflowCommand) {
  EXPECT_EQ(markdown_text("a\n## b\r\n- c\td"), "a ## b  - c d");
  EXPECT_EQ(markdown_text("::error::x std::vector"), ":\\:error:\\:x std:\\:vector");
  EXPECT_EQ(markdown_text("plain text, 5.0% (sm_90) \xe2\x86\x92 ok"),
            "plain text, 5.0% (sm_90) \xe2\x86\x92 ok");
}

TEST(MarkdownCode, ShowsTheTextExactly) {
  EXPECT_EQ(markdown_code("softmax_rows"), "`softmax_rows`");
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x``"), "``` `x`` ```");
  EXPECT_EQ(markdown_code(" a "), "`  a  `");
  EXPECT_EQ(markdown_code("a\nb"), "`a b`");
  EXPECT_EQ(markdown_code(""), "");
}

TEST(MarkdownCode, EscapesPipesOnlyInTables) {
  EXPECT_EQ(markdown_code("a|b", /*in_table=*/true), "`a\\|b`");
  EXPECT_EQ(markdown_code("a|b"), "`a|b`");
}

}  // namespace
}  // namespace kev::io
