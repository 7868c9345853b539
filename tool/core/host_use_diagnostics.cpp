#include "core/host_use_diagnostics.h"

#include <cctype>
#include <cstddef>
#include <optional>
#include <set>
#include <utility>

namespace kev {
namespace {

struct Diagnostic {
  std::string file;
  int line = 0;
  std::string kind;  // "error", "warning", "remark", "note"
  std::string first_line;
};

// "path(12): error: ..." (nvcc's front end) or "path:12:5: error: ..." (the host compiler).
std::optional<Diagnostic> diagnostic_of(std::string_view text) {
  for (const std::string_view kind : {"error", "fatal error", "warning", "remark", "note"}) {
    const std::string marker = ": " + std::string(kind);
    const std::size_t at = text.find(marker);
    if (at == std::string_view::npos || at == 0) continue;
    const std::string_view head = text.substr(0, at);
    Diagnostic d;
    d.kind = kind == "fatal error" ? "error" : std::string(kind);
    d.first_line = std::string(text);
    if (head.back() == ')') {
      const std::size_t open = head.rfind('(');
      if (open == std::string_view::npos || open == 0) continue;
      const std::string_view digits = head.substr(open + 1, head.size() - open - 2);
      if (digits.empty()) continue;
      bool numeric = true;
      for (char c : digits) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
      if (!numeric) continue;
      d.file = std::string(head.substr(0, open));
      d.line = std::stoi(std::string(digits));
      return d;
    }
    // path:line[:col]
    std::size_t colon = head.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::size_t end = colon + 1;
    while (end < head.size() && std::isdigit(static_cast<unsigned char>(head[end]))) ++end;
    if (end == colon + 1) continue;
    d.file = std::string(head.substr(0, colon));
    d.line = std::stoi(std::string(head.substr(colon + 1, end - colon - 1)));
    return d;
  }
  return std::nullopt;
}

// The parameter named by a generated header's function in `text`.
std::optional<std::string> parameter_named(std::string_view text,
                                           const std::vector<HostDisagreement>& disagreements) {
  const std::string_view prefix = "kernelevo_params::";
  for (std::size_t at = text.find(prefix); at != std::string_view::npos;
       at = text.find(prefix, at + 1)) {
    const std::string_view rest = text.substr(at + prefix.size());
    for (const auto& d : disagreements)
      if (rest.substr(0, d.name.size()) == d.name && rest.substr(d.name.size(), 1) == "_")
        return d.name;
  }
  // nvcc's note names the function alone: "cannot call non-constexpr function "NAME_has_no...""
  for (const auto& d : disagreements)
    if (text.find(d.name + "_has_no_compile_time_value_in_host_code") != std::string_view::npos)
      return d.name;
  return std::nullopt;
}

}  // namespace

HostUseDiagnostics read_host_use_diagnostics(std::string_view nvcc_output,
                                             const std::vector<HostDisagreement>& disagreements,
                                             const std::vector<DerivedConstant>& derived) {
  HostUseDiagnostics out;
  std::set<std::pair<std::string, int>> seen;
  auto values_of = [&](const std::string& name) {
    for (const auto& d : disagreements)
      if (d.name == name) return d.values;
    return std::string();
  };
  auto add_use = [&](const Diagnostic& at, const std::string& what, const std::string& param) {
    if (!seen.insert({at.file, at.line}).second) return;
    out.uses.push_back(make_error(
        "uses " + what + " in host code, but the built architectures lock different values of " +
            param + " (" + values_of(param) +
            "), so host code has no one value of it: nvcc's host pass would take the lowest "
            "architecture's, whatever device runs. Read " +
            param + " at run time (`const int n = " + param +
            ";` in a function), use it in device code only, build one of these architectures, "
            "or lock one value for all of them",
        {at.file, at.line, 0}, ExitCode::usage));
  };
  auto finish = [&](const Diagnostic& d, const std::string& text) {
    const std::string marker = derived_marker("");
    // In the diagnostic's own line: a quoted source line may show the attribute itself.
    const std::string& head = d.first_line;
    if (const std::size_t at = head.find(marker); at != std::string::npos) {
      std::size_t end = at + marker.size();
      while (end < head.size() &&
             (std::isalnum(static_cast<unsigned char>(head[end])) || head[end] == '_'))
        ++end;
      const std::string param = head.substr(at + marker.size(), end - at - marker.size());
      std::string name;
      // nvcc: variable "ns::kBlock" ...; the host compiler: 'ns::kBlock' is deprecated
      if (const std::size_t v = head.find_first_of("\"'"); v != std::string::npos && v < at) {
        name = head.substr(v + 1, head.find(head[v], v + 1) - v - 1);
        if (const std::size_t q = name.rfind("::"); q != std::string::npos)
          name = name.substr(q + 2);
      }
      for (const auto& c : derived)
        if (c.line == d.line) return;  // a derived constant's own declaration
      int declared = 0;
      for (const auto& c : derived)
        if (c.name == name) declared = c.line;
      add_use(d,
              (name.empty() ? std::string("a constant") : name) + " (derived from " + param +
                  (declared ? " on line " + std::to_string(declared) : std::string()) + ")",
              param);
      return;
    }
    if (d.kind != "error") return;
    if (const auto name = parameter_named(text, disagreements)) {
      add_use(d, *name + " at compile time", *name);
    } else if (out.other_error.empty()) {
      out.other_error = d.first_line;
    }
  };
  std::optional<Diagnostic> open;  // the diagnostic whose quoted lines are being read
  std::string quoted;
  std::size_t start = 0;
  while (start < nvcc_output.size()) {
    std::size_t end = nvcc_output.find('\n', start);
    if (end == std::string_view::npos) end = nvcc_output.size();
    const std::string_view line = nvcc_output.substr(start, end - start);
    start = end + 1;
    const auto d = diagnostic_of(line);
    if (d && d->kind != "note") {
      if (open) finish(*open, quoted);
      open = d;
      quoted = std::string(line);
      continue;
    }
    if (open) quoted += "\n" + std::string(line);
  }
  if (open) finish(*open, quoted);
  return out;
}

}  // namespace kev
