// libFuzzer entry point for a model's answer (`kernelevo evolve`): its reasoning stripped, its
// SEARCH/REPLACE edits and code blocks parsed, and the candidate built against a marked kernel
// (tests/fixtures/evolve/saxpy.cu) with the frozen-region, include and device-only rules. The
// answer is untrusted text: nothing crashes, hangs or leaks, whatever it says.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/candidate_builder.h"
#include "core/response_parser.h"

namespace {

const std::string& original() {
  static const std::string text = [] {
    std::ifstream in(KERNELEVO_FIXTURES "/evolve/saxpy.cu");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string answer(reinterpret_cast<const char*>(data), size);
  const kev::ParsedResponse parsed = kev::parse_response(kev::strip_reasoning(answer));
  if (parsed.has_code())
    (void)kev::build_candidate(original(), original(), parsed,
                               kev::KernelNames{"saxpy.cu", "saxpy", "saxpy_naive"});
  return 0;
}
