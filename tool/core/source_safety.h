#pragma once
// Safety rules for model-written source: the text is untrusted. A compiler reading a host
// file (/proc/self/environ, ~/.ssh/...) through an #include could leak it into a compile
// log that goes back to the model, so only plain relative includes are accepted.
#include <string>
#include <string_view>

#include "core/result.h"

namespace kev {

// Checks every #include-like directive of `candidate` that the original does not already
// have: refused are absolute paths, paths escaping with "..", home-relative or
// backslash paths, /proc /dev /etc /sys, computed includes (#include MACRO), and
// #include_next / #embed / #import. The error names file:line of the candidate.
[[nodiscard]] Status check_includes(std::string_view candidate, std::string_view original,
                                    const std::string& file);

}  // namespace kev
