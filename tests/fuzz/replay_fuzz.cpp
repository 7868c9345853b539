// libFuzzer entry point for the readers of recorded spaces (`tune --replay`, `--resume`): a
// Kernel Tuner cachefile, a T4 results file or a kernelevo trace, the format detected from the
// content; and of a report's JSON (`kernelevo report`, which the action runs on the report its
// earlier step wrote). Nothing crashes, hangs or leaks, whatever the text, and a trace that
// reads is written so that it reads back and writes again the same (`--resume` reads what an
// earlier run wrote).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/replay_reader.h"
#include "io/report_json.h"
#include "io/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)kev::io::parse_recording(text, "fuzz.json");
  if (const auto trace = kev::io::parse_trace(text, "fuzz.jsonl"); trace) {
    const auto written = [](const kev::io::Trace& t) {
      std::string out = kev::io::trace_header_line(t.header) + "\n";
      for (const auto& record : t.records) out += kev::io::trace_record_line(record) + "\n";
      return out;
    };
    const std::string once = written(*trace);
    const auto again = kev::io::parse_trace(once, "written.jsonl");
    if (!again) std::abort();                   // what the writer wrote, the reader refuses
    if (written(*again) != once) std::abort();  // not canonical
  }
  (void)kev::io::parse_report_json(text, "fuzz.report.json");
  return 0;
}
