#pragma once
// Turns a model's parsed answer into a full candidate source, or says why not. Edits apply
// to the variant the model was shown; the frozen parts and the include rules are checked
// against the original, before anything is compiled.
#include <string>
#include <string_view>

#include "core/kernel_regions.h"
#include "core/response_parser.h"
#include "core/result.h"
#include "core/source_safety.h"

namespace kev {

enum class CandidateKind { edits, rewrite, whole_file };
[[nodiscard]] const char* to_string(CandidateKind kind);

struct Candidate {
  std::string source;
  CandidateKind kind = CandidateKind::edits;
};

// Precondition: parsed.has_code(). SEARCH/REPLACE edits win over code blocks when both are
// present. A code block must define the kernel under its original entry name; one holding
// the @kernelevo mark is taken as the whole file. Then the candidate must keep the frozen
// parts, include only what the original does or `includes` allows (source_safety.h), and
// add only device-only helpers (device_only_rules.h). Errors use ExitCode::failure and say
// which rule refused the candidate.
[[nodiscard]] Result<Candidate> build_candidate(std::string_view parent, std::string_view original,
                                                const ParsedResponse& parsed,
                                                const KernelNames& names,
                                                const IncludePolicy* includes = nullptr);

}  // namespace kev
