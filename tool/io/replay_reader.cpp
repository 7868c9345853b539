#include "io/replay_reader.h"

#include <nlohmann/json.hpp>

#include "io/compressed_file.h"
#include "io/kernel_tuner_cache.h"
#include "io/t4_results.h"
#include "io/trace.h"

namespace kev::io {

Result<Recording> parse_recording(const std::string& text, const std::string& path) {
  if (looks_like_trace(text)) {
    auto trace = parse_trace(text, path);
    if (!trace) return trace.error();
    return recording_from_trace(*trace, path);
  }
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based; turn it into a line and column.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return make_error("invalid JSON: " + std::string(e.what()),
                      {path, static_cast<int>(line), static_cast<int>(column)});
  } catch (const nlohmann::json::exception& e) {  // a number too large for a double
    return make_error("invalid JSON: " + std::string(e.what()), {path});
  }
  try {
    if (doc.is_object() && doc.contains("cache")) return recording_from_kernel_tuner(doc, path);
    if (doc.is_object() && doc.contains("results")) return recording_from_t4(doc, path);
  } catch (const nlohmann::json::exception& e) {
    return make_error("unexpected structure: " + std::string(e.what()), {path});
  }
  return make_error(
      "unknown recording format (expected a kernelevo trace, a Kernel Tuner cachefile or a T4 "
      "results file)",
      {path});
}

Result<Recording> read_recording(const std::string& path) {
  auto text = read_maybe_gzip(path);
  if (!text) return text.error();
  return parse_recording(*text, path);
}

}  // namespace kev::io
