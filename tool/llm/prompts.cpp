#include "llm/prompts.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/time_text.h"

namespace kev::llm {

namespace {

std::string number(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string system_message() {
  return "You are an expert CUDA performance engineer. You improve one GPU kernel at a time. "
         "Every variant you write is compiled for the exact GPU, verified element by element "
         "against a reference kernel on fresh random inputs (outputs are poisoned before every "
         "run and verified again after timing, so skipping work is caught), and timed from a "
         "cold L2 cache. Only the kernel's own code may change: the spec comment block, the "
         "reference kernel, the kernel's signature and entry name, and everything outside the "
         "kernel are frozen. Use only device code and CUDA headers; do not include files by "
         "absolute path or with '..'.";
}

std::string device_section(const DeviceFacts& d) {
  std::string s = "## GPU\n";
  if (d.name.empty() && d.arch.empty()) return s + "unknown (not measured yet)\n";
  s += "- " + d.name + (d.arch.empty() ? "" : " (" + d.arch + ")") + "\n";
  if (d.sms > 0) s += "- " + std::to_string(d.sms) + " SMs\n";
  if (d.l2_bytes > 0)
    s += "- L2 cache: " + number(static_cast<double>(d.l2_bytes) / (1024.0 * 1024.0), "%.0f") +
         " MiB\n";
  if (d.copy_gbps > 0) s += "- measured copy bandwidth: " + number(d.copy_gbps, "%.0f") + " GB/s\n";
  if (d.read_gbps > 0) s += "- measured read bandwidth: " + number(d.read_gbps, "%.0f") + " GB/s\n";
  return s;
}

std::string list_section(const std::string& title, const std::vector<std::string>& items,
                         const std::string& when_empty) {
  std::string s = "## " + title + "\n";
  if (items.empty()) return s + when_empty + "\n";
  for (const auto& item : items) s += "- " + item + "\n";
  return s;
}

std::string common_sections(const EvolveContext& c) {
  const EvolveTarget& t = *c.target;
  std::string s;
  s += "# Kernel `" + t.kernel_id + "` (entry point `" + t.names.entry + "`, file " + t.names.file +
       ")\n";
  s += "Generation " + std::to_string(c.generation) + " of " + std::to_string(c.generations) +
       ".\n\n";
  s += "## Spec (frozen)\n```yaml\n" + t.spec_text +
       (t.spec_text.empty() || t.spec_text.back() == '\n' ? "" : "\n") + "```\n\n";
  s += device_section(t.device) + "\n";
  s += "## Results so far\n";
  if (c.baseline_us) s += "- original: " + format_time_us(*c.baseline_us) + "\n";
  for (const auto& r : c.best_results) s += "- " + r + "\n";
  if (!c.baseline_us && c.best_results.empty()) s += "none yet\n";
  s += "\n";
  s += list_section("Ideas tried before", c.ideas_tried, "none yet") + "\n";
  s += list_section(
           "Failures of the last generation (compile errors, verification failures, "
           "refused answers)",
           c.last_failures, "none") +
       "\n";
  s += "## Current source (variant `" + c.parent_label + "`" +
       (c.parent_us ? ", " + format_time_us(*c.parent_us) : std::string()) + ")\n```cuda\n" +
       c.parent_source + (c.parent_source.empty() || c.parent_source.back() == '\n' ? "" : "\n") +
       "```\n";
  return s;
}

}  // namespace

Prompt ChatPrompts::ideas_prompt(const EvolveContext& c) const {
  std::string user = common_sections(c);
  user += "\n## Task\nPropose " + std::to_string(std::max(c.candidates, 1)) +
          " distinct ideas that would make `" + c.target->names.entry +
          "` faster on this GPU, most promising first, as a numbered list in plain words (no "
          "code). For each, say why it should help (memory traffic, occupancy, instruction "
          "count, latency hiding) and how large a gain you expect. Do not repeat ideas that "
          "were tried and failed unless you say what to do differently.\n";
  return {system_message(), std::move(user)};
}

Prompt ChatPrompts::implementation_prompt(const EvolveContext& c) const {
  std::string user = common_sections(c);
  user += "\n## Ideas\n" + c.ideas + (c.ideas.empty() || c.ideas.back() == '\n' ? "" : "\n");
  user += "\n## Task\nImplement idea " + std::to_string(c.candidate) +
          " from the list above (if there are fewer ideas, the most promising one not yet "
          "implemented) in the current source. Keep the kernel's signature and entry name "
          "exactly as they are; the launch geometry comes from the spec. Answer with either\n"
          "1. SEARCH/REPLACE edits of the current source, each as\n"
          "<<<<<<< SEARCH\n(exact lines of the current source, enough to match one place)\n"
          "=======\n(the new lines)\n>>>>>>> REPLACE\n"
          "2. or one fenced ```cuda block holding the complete new definition of `" +
          c.target->names.entry +
          "` preceded by any new __device__ helper functions it needs (nothing else).\n"
          "Keep the explanation short.\n";
  return {system_message(), std::move(user)};
}

}  // namespace kev::llm
