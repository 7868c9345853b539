#pragma once
// Extracts code from a model's answer: SEARCH/REPLACE edit blocks and fenced code blocks.
// The answer is untrusted text; parsing never fails, it just finds nothing.
#include <string>
#include <string_view>
#include <vector>

namespace kev {

// <<<<<<< SEARCH
// exact lines of the current source
// =======
// their replacement
// >>>>>>> REPLACE
struct SearchReplaceEdit {
  std::string search;
  std::string replace;
  int line = 0;  // line of the SEARCH marker in the answer
};

struct CodeBlock {
  std::string language;  // the fence's info string ("cuda", "cpp", or empty)
  std::string code;
  int line = 0;  // line of the opening fence in the answer
};

struct ParsedResponse {
  std::vector<SearchReplaceEdit> edits;
  std::vector<CodeBlock> code_blocks;  // fenced blocks that are not edit blocks
  [[nodiscard]] bool has_code() const { return !edits.empty() || !code_blocks.empty(); }
};

// Code from the answer after strip_reasoning: a draft in the model's reasoning is not code.
[[nodiscard]] ParsedResponse parse_response(std::string_view text);

// The answer without its reasoning: <think>...</think> (and <thinking>, <reasoning>)
// blocks, an unclosed one to the end, and everything before a closing tag that has no
// opening one (templates that put the opening tag in the prompt).
[[nodiscard]] std::string strip_reasoning(std::string_view text);

}  // namespace kev
