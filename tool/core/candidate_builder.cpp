#include "core/candidate_builder.h"

#include <optional>
#include <vector>

#include "core/device_only_rules.h"
#include "core/source_lexer.h"
#include "core/source_safety.h"

namespace kev {

namespace {

Error rejected(std::string message, const KernelNames& names, int line = 0) {
  return make_error(std::move(message), SourceLocation{names.file, line, 0}, ExitCode::failure);
}

std::string_view trim_line(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

struct Line {
  std::size_t begin;
  std::size_t end;  // including the newline when there is one
  std::string_view trimmed;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(
        {start, end,
         trim_line(text.substr(start, end - start - (nl == std::string_view::npos ? 0 : 1)))});
    start = end;
  }
  return lines;
}

// Where `search` occurs in `text`: exactly, or else line by line ignoring indentation and
// trailing blanks. Returns the number of matches and the span of the first.
std::pair<int, TextSpan> find_search_text(std::string_view text, std::string_view search) {
  int count = 0;
  TextSpan first;
  for (auto pos = text.find(search); pos != std::string_view::npos;
       pos = text.find(search, pos + 1)) {
    if (count++ == 0) first = {pos, pos + search.size()};
  }
  if (count > 0) return {count, first};
  auto hay = lines_of(text);
  auto needle = lines_of(search);
  while (!needle.empty() && needle.back().trimmed.empty()) needle.pop_back();
  while (!needle.empty() && needle.front().trimmed.empty()) needle.erase(needle.begin());
  if (needle.empty()) return {0, first};
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    bool same = true;
    for (std::size_t j = 0; j < needle.size() && same; ++j)
      same = hay[i + j].trimmed == needle[j].trimmed;
    if (!same) continue;
    if (count++ == 0) first = {hay[i].begin, hay[i + needle.size() - 1].end};
  }
  return {count, first};
}

Result<std::string> apply_edits(std::string_view parent, const ParsedResponse& parsed,
                                const KernelNames& names) {
  std::string current(parent);
  int n = 0;
  for (const auto& edit : parsed.edits) {
    ++n;
    const std::string which =
        "edit " + std::to_string(n) + " (answer line " + std::to_string(edit.line) + ")";
    if (trim_line(edit.search).empty()) return rejected(which + " has an empty SEARCH part", names);
    auto regions = locate_kernel_regions(current, names);
    if (!regions) return regions.error();
    const auto [count, span] = find_search_text(current, edit.search);
    if (count == 0) return rejected(which + ": SEARCH text not found in the source", names);
    if (count > 1)
      return rejected(which + ": SEARCH text matches " + std::to_string(count) +
                          " places; it must match exactly one",
                      names);
    const int line = line_of(current, span.begin);
    const auto& r = *regions;
    if (r.spec_block && span.overlaps(*r.spec_block))
      return rejected(which + " touches the frozen spec comment block", names, line);
    if (r.reference && span.overlaps(*r.reference))
      return rejected(which + " touches the frozen reference kernel `" + names.reference + "`",
                      names, line);
    // An edit may reach into the signature: check_frozen_parts then accepts only changes
    // that keep the launch ABI.
    if (!r.editable.contains(span))
      return rejected(which + " lies outside the kernel's own code", names, line);
    std::string replacement = edit.replace;
    // A line-wise match covers whole lines: keep the line structure.
    const bool whole_lines = current.compare(span.begin, edit.search.size(), edit.search) != 0;
    if (whole_lines && !replacement.empty() && replacement.back() != '\n' &&
        current[span.end - 1] == '\n')
      replacement += '\n';
    current.replace(span.begin, span.end - span.begin, replacement);
  }
  return current;
}

Result<Candidate> apply_rewrite(std::string_view parent, const ParsedResponse& parsed,
                                const KernelNames& names) {
  const std::string entry = entry_base_name(names.entry);
  const CodeBlock* chosen = nullptr;
  std::optional<TextSpan> definition;
  for (const auto& block : parsed.code_blocks) {
    if (auto def = find_definition(block.code, entry)) {
      chosen = &block;
      definition = def;
    }
  }
  if (!chosen)
    return rejected("the code in the answer does not define kernel `" + entry +
                        "` (its entry name and signature are frozen)",
                    names);
  if (chosen->code.find("@kernelevo") != std::string::npos)
    return Candidate{chosen->code, CandidateKind::whole_file};
  if (!names.reference.empty() && names.reference != "default" &&
      find_definition(chosen->code, entry_base_name(names.reference)))
    return rejected("the answer redefines the frozen reference kernel `" + names.reference + "`",
                    names);
  auto regions = locate_kernel_regions(parent, names);
  if (!regions) return regions.error();
  std::string_view code = std::string_view(chosen->code).substr(0, definition->end);
  while (!code.empty() && (code.front() == '\n' || code.front() == '\r')) code.remove_prefix(1);
  std::string source(parent.substr(0, regions->editable.begin));
  source += '\n';
  source += code;
  source += parent.substr(regions->body.end);
  return Candidate{std::move(source), CandidateKind::rewrite};
}

}  // namespace

const char* to_string(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::edits:
      return "edits";
    case CandidateKind::rewrite:
      return "rewrite";
    case CandidateKind::whole_file:
      return "whole_file";
  }
  return "edits";
}

Result<Candidate> build_candidate(std::string_view parent, std::string_view original,
                                  const ParsedResponse& parsed, const KernelNames& names,
                                  const IncludePolicy* includes) {
  Candidate candidate;
  if (!parsed.edits.empty()) {
    auto edited = apply_edits(parent, parsed, names);
    if (!edited) return edited.error();
    candidate = {std::move(edited.value()), CandidateKind::edits};
  } else {
    auto rewritten = apply_rewrite(parent, parsed, names);
    if (!rewritten) return rewritten.error();
    candidate = std::move(rewritten.value());
  }
  if (auto safe = check_includes(candidate.source, original, names.file, includes); !safe)
    return safe.error();
  if (auto frozen = check_frozen_parts(original, candidate.source, names); !frozen)
    return frozen.error();
  if (auto device = check_device_only_helpers(original, candidate.source, names); !device)
    return device.error();
  return candidate;
}

}  // namespace kev
