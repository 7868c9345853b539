// libFuzzer entry point for the spec parser: the input is a .cu source (marked blocks), read
// again as a Python source (Triton specs in comment blocks) and as a project kernelevo.yaml.
// Nothing crashes, hangs or leaks, whatever the text.
#include <cstdint>
#include <string>

#include "core/spec_check.h"
#include "io/spec_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& block : kev::find_marked_blocks(text, "fuzz.cu")) {
    const kev::SpecParse p = kev::parse_marked_block(block, "fuzz.cu");
    for (const auto& spec : p.specs) (void)kev::check_spec(spec, false, 200000);
    for (const auto& spec : p.partial) (void)kev::check_spec(spec, true);
  }
  for (const auto& block : kev::find_python_marked_blocks(text, "fuzz.py")) {
    const kev::SpecParse p = kev::parse_marked_block(block, "fuzz.py");
    for (const auto& spec : p.specs) (void)kev::check_spec(spec, false, 200000);
  }
  const kev::SpecParse project = kev::parse_project_yaml(text, "kernelevo.yaml");
  for (const auto& spec : project.specs) (void)kev::check_spec(spec, false, 200000);
  return 0;
}
