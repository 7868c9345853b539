// libFuzzer entry point for the lockfile reader: the input is a kernelevo.lock.json, which
// arrives in pull requests. Nothing crashes, hangs or leaks, whatever the text, and a file
// that reads is written canonically: writing it, reading that back and writing again gives
// the same bytes (the property `kernelevo merge` and the tuner's updates rely on).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/lockfile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto lock = kev::parse_lockfile(text, "fuzz.lock.json");
  if (!lock) return 0;
  const std::string written = kev::format_lockfile(*lock);
  const auto again = kev::parse_lockfile(written, "written.lock.json");
  if (!again) std::abort();  // what the writer wrote, the reader refuses
  if (kev::format_lockfile(*again) != written) std::abort();  // not canonical
  return 0;
}
