#pragma once
// Text that came out of a compiler or a run and may go to a model or into a report: a
// compile that read a file it should not have could carry a secret in its log. Whatever
// looks like a credential is replaced by "[redacted]" and the text is capped. The known
// key is redacted separately (llm/secret.h); this catches the others (a GitHub token, a
// cloud key in a .env) by their shapes.
#include <cstddef>
#include <string>
#include <string_view>

namespace kev {

// Replaces, with "[redacted]": tokens with a well-known prefix (sk-, ghp_/gho_/ghs_/ghu_/
// ghr_, github_pat_, glpat-, xox?-, AKIA/ASIA, AIza, hf_), JWTs, what follows "Bearer ",
// private-key blocks, and the value of NAME=value / NAME: value where NAME names a secret
// (api_key, TOKEN, password...).
[[nodiscard]] std::string scrub_secret_shapes(std::string_view text);

// scrub_secret_shapes, then at most `max_chars`, saying how much was cut.
[[nodiscard]] std::string scrubbed_excerpt(std::string_view text, std::size_t max_chars);

}  // namespace kev
