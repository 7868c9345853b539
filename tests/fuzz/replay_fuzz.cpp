// libFuzzer entry point for the readers of recorded spaces (`tune --replay`, `--resume`): a
// Kernel Tuner cachefile, a T4 results file or a kernelevo trace, the format detected from the
// content; and of a report's JSON (`kernelevo report`, which the action runs on the report its
// earlier step wrote). Nothing crashes, hangs or leaks, whatever the text.
#include <cstdint>
#include <string>

#include "io/replay_reader.h"
#include "io/report_json.h"
#include "io/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)kev::io::parse_recording(text, "fuzz.json");
  (void)kev::io::parse_trace(text, "fuzz.jsonl");
  (void)kev::io::parse_report_json(text, "fuzz.report.json");
  return 0;
}
