#include "io/spec_dispatch_edit.h"

#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

#include "core/spec.h"
#include "core/spec_check.h"
#include "io/spec_yaml.h"

namespace kev {
namespace {

// Byte offset of the start of 1-based line `line`.
std::size_t line_offset(std::string_view text, int line) {
  std::size_t at = 0;
  for (int n = 1; n < line && at < text.size(); ++n) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return text.size();
    at = nl + 1;
  }
  return at;
}

// The leading blanks of the block's first YAML line that holds a key.
std::string indentation(const std::string& yaml) {
  std::size_t at = 0;
  while (at < yaml.size()) {
    std::size_t end = yaml.find('\n', at);
    if (end == std::string::npos) end = yaml.size();
    const std::string_view line(yaml.data() + at, end - at);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '#')
      return std::string(line.substr(0, first));
    at = end + 1;
  }
  return {};
}

bool is_dimension_name(std::string_view s) {
  if (s.empty() || s.size() > 64 || std::isdigit(static_cast<unsigned char>(s.front())))
    return false;
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `source` holds `name` as a whole identifier followed by "(": a function of that name
// (declared, defined or called; the templates define their launchers so).
bool names_function(std::string_view source, const std::string& name) {
  for (std::size_t at = source.find(name); at != std::string_view::npos;
       at = source.find(name, at + 1)) {
    if (at > 0 && is_identifier_char(source[at - 1])) continue;
    std::size_t next = at + name.size();
    if (next < source.size() && is_identifier_char(source[next])) continue;
    while (next < source.size() && (source[next] == ' ' || source[next] == '\t')) ++next;
    if (next < source.size() && source[next] == '(') return true;
  }
  return false;
}

// The launchers among the block's kernels' functions: NAME_launch for each macro-parameterised
// kernel NAME whose launcher the source defines. Each is renamed per compiled variant, as a
// function of external linkage in a dispatching source must be.
std::vector<std::string> launchers(const SpecParse& p, std::string_view source) {
  std::vector<std::string> out;
  for (const KernelSpec& s : p.specs)
    if (!is_template_kernel(s) && names_function(source, s.kernel + "_launch"))
      out.push_back(s.kernel + "_launch");
  return out;
}

bool has_dispatch(const SpecParse& p) {
  for (const auto* list : {&p.specs, &p.partial})
    for (const KernelSpec& s : *list)
      if (s.dispatch) return true;
  return false;
}

}  // namespace

Result<std::string> add_dispatch(std::string_view source, const std::string& file,
                                 const std::string& dim) {
  if (!is_dimension_name(dim))
    return make_error("--dispatch wants a problem dimension's name (such as cols), got '" +
                      dim.substr(0, 64) + "'");
  const std::vector<MarkedBlock> blocks = find_marked_blocks(source, file);
  if (blocks.empty()) return make_error(file + " has no @kernelevo block to add dispatch to");
  // Insertion points, each the start of the line holding the block's "*/" (or the "*/"
  // itself when YAML shares its line), from the last so earlier offsets stay valid.
  std::string out(source);
  for (auto b = blocks.rbegin(); b != blocks.rend(); ++b) {
    const SpecParse parsed = parse_marked_block(*b, file);
    if (has_dispatch(parsed))
      return make_error(
          "kernel '" + b->kernel_name + "' already has a dispatch; " + file + " is left as it is",
          b->mark);
    std::string entries;
    for (const std::string& name : launchers(parsed, source))
      entries += (entries.empty() ? ", entries: [" : ", ") + name;
    if (!entries.empty()) entries += "]";
    const std::size_t close = out.find("*/", line_offset(out, b->mark.line));
    if (close == std::string::npos) return make_error("unterminated @kernelevo block", b->mark);
    const std::size_t line_start = out.rfind('\n', close) + 1;  // npos + 1 == 0
    const bool alone = out.find_first_not_of(" \t", line_start) == close;
    const std::string line = indentation(b->yaml) + "dispatch: {by: [" + dim +
                             "], buckets: per_problem" + entries + "}\n";
    out.insert(alone ? line_start : close, alone ? line : "\n" + line);
  }
  // The result must be a valid spec: the tool's own checks say what is wrong (the file
  // with the line added is not written, so the error names the kernel, not a line of it).
  const auto refused = [&](const MarkedBlock& b, const Error& e) {
    return make_error("cannot dispatch kernel '" + b.kernel_name + "' by " + dim + ": " +
                      e.message);
  };
  std::string macro;      // the id of a macro-parameterised kernel, if any
  std::string templated;  // and of a template kernel (`kernel: f<P...>`)
  for (const MarkedBlock& b : find_marked_blocks(out, file)) {
    const SpecParse p = parse_marked_block(b, file);
    if (!p.errors.empty()) return refused(b, p.errors.front());
    for (const KernelSpec& s : p.specs) {
      if (auto errors = check_spec(s); !errors.empty()) return refused(b, errors.front());
      (is_template_kernel(s) ? templated : macro) = s.id;
    }
  }
  // A source with a macro-parameterised dispatching kernel is compiled once per winner in
  // its own place, where a template kernel would be instantiated once per copy
  // (docs/build-integration.md, "Dispatch by problem size").
  if (!macro.empty() && !templated.empty())
    return make_error(file + " marks the macro-parameterised kernel '" + macro +
                      "' and the template kernel '" + templated +
                      "'; a dispatching source marks kernels of one kind, so copy it without "
                      "--dispatch");
  return out;
}

}  // namespace kev
