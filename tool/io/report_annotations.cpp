#include "io/report_annotations.h"

#include <vector>

namespace kev::io {

namespace {

std::string annotation(const char* severity, const KernelReport* k, const std::string& title,
                       const std::string& message) {
  std::string line = std::string("::") + severity;
  std::string props;
  if (k != nullptr && !k->source.empty()) {
    props += "file=" + escape_annotation_property(k->source);
    if (k->line > 0) props += ",line=" + std::to_string(k->line);
  }
  props += (props.empty() ? "" : ",") + std::string("title=") + escape_annotation_property(title);
  return line + " " + props + "::" + escape_annotation_data(message) + "\n";
}

std::string title_of(const KernelReport& k) {
  return std::string("kernelevo: ") + kernel_label(k) + " " + to_string(k.verdict);
}

void emit(std::string& out, const char* severity, const std::vector<const KernelReport*>& ks,
          std::size_t max_per_kind) {
  if (max_per_kind == 0) return;
  const bool summarise = ks.size() > max_per_kind;
  const std::size_t shown = summarise ? max_per_kind - 1 : ks.size();
  for (std::size_t i = 0; i < shown; ++i)
    out += annotation(severity, ks[i], title_of(*ks[i]), ks[i]->evidence);
  if (!summarise) return;
  std::string rest;
  for (std::size_t i = shown; i < ks.size(); ++i)
    rest += (rest.empty() ? "" : ", ") + ks[i]->id + " " + to_string(ks[i]->verdict);
  const std::string n = std::to_string(ks.size() - shown);
  out += annotation(severity, nullptr, "kernelevo: " + n + " more",
                    n + " more kernels (see the job summary): " + rest);
}

}  // namespace

std::string escape_annotation_data(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string escape_annotation_property(const std::string& text) {
  std::string out;
  for (char c : escape_annotation_data(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string report_annotations(const Report& report, std::size_t max_per_kind) {
  std::vector<const KernelReport*> errors;
  std::vector<const KernelReport*> warnings;
  for (const auto& k : report.kernels) {
    if (is_failure(k.verdict))
      errors.push_back(&k);
    else if (k.verdict == KernelVerdict::stale || k.verdict == KernelVerdict::missing ||
             k.verdict == KernelVerdict::unsure)
      warnings.push_back(&k);
  }
  std::string out;
  emit(out, "error", errors, max_per_kind);
  emit(out, "warning", warnings, max_per_kind);
  return out;
}

}  // namespace kev::io
