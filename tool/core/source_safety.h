#pragma once
// Safety rules for model-written source: the text is untrusted. A compiler reading a host
// file (/proc/self/environ, ~/.ssh/..., a .env beside the source) through an #include could
// leak it into a compile log that goes back to the model, so a candidate may only include
// what the original includes, or what an IncludePolicy allows.
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

// Which files model-written source may make the compiler read. Implemented where the file
// system and the project's version control are known (cuda/include_policy.h).
class IncludePolicy {
 public:
  virtual ~IncludePolicy() = default;
  // A new `#include <path>` (angled) or `#include "path"`, resolved as the compiler would:
  // empty when allowed, else why not.
  [[nodiscard]] virtual std::string check_include(std::string_view path, bool angled) const = 0;
  // A file the compiler reported reading (its dependency output): empty when allowed.
  [[nodiscard]] virtual std::string check_file(const std::string& path) const = 0;
};

// Checks every #include-like construct of `candidate` that the original does not already
// have, found as the preprocessor finds them whatever surrounds them (comments before the
// '#', splices with trailing blanks, a lone CR as a line end, digraphs and trigraphs, any
// number of __has_include on a line), and conservatively (also inside literals). Refused
// are absolute paths, paths escaping with "..", home-relative or backslash paths,
// /proc /dev /etc /sys, computed includes (#include MACRO), #include_next / #embed /
// #import / __has_include_next / __has_embed, and, given a policy, whatever it refuses.
// The error names file:line of the candidate.
[[nodiscard]] Status check_includes(std::string_view candidate, std::string_view original,
                                    const std::string& file, const IncludePolicy* policy = nullptr);

}  // namespace kev
