#pragma once
// Untrusted strings in GitHub Flavored Markdown (a job summary, a pull-request body): ids,
// paths, device names, tuned_with and evidence come from lockfiles and reports that a pull
// request can edit, so they are shown as written and never read as markup.
#include <string>
#include <string_view>

namespace kev::io {

// Inline text that starts no link, image, HTML, emphasis, math or table cell, stays on its
// line, @mentions nobody and references no issue (a zero-width space after '@', and after
// '#' before a digit), and holds no "::" that a CI log could take for a workflow command.
[[nodiscard]] std::string markdown_text(std::string_view text);

// An inline code span showing `text` exactly (its fence is longer than any run of backticks
// inside), on one line. In a table cell, '|' is escaped as GFM's tables require; elsewhere
// the escape would show.
[[nodiscard]] std::string markdown_code(std::string_view text, bool in_table = false);

}  // namespace kev::io
