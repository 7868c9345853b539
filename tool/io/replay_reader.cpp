#include "io/replay_reader.h"

#include <nlohmann/json.hpp>

#include "io/compressed_file.h"
#include "io/json_parse.h"
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
  auto parsed = parse_untrusted_json<nlohmann::ordered_json>(text, {path});
  if (!parsed) return parsed.error();
  const nlohmann::ordered_json& doc = *parsed;
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

Result<Recordings> read_recordings(const std::string& path) {
  auto text = read_maybe_gzip(path);
  if (!text) return text.error();
  Recordings out;
  if (looks_like_trace(*text)) {
    auto trace = parse_trace(*text, path);
    if (!trace) return trace.error();
    if (!trace->header.buckets.empty()) {
      out.by = trace->header.dispatch_by;
      out.buckets = trace->header.buckets;
      for (std::size_t b = 0; b < out.buckets.size(); ++b) {
        auto rec = recording_from_trace(bucket_trace(*trace, b), path);
        if (!rec) return rec.error();
        out.parts.push_back({b, bucket_label(out.by, out.buckets[b]), std::move(*rec)});
      }
      return out;
    }
  }
  auto rec = parse_recording(*text, path);
  if (!rec) return rec.error();
  out.parts.push_back({std::nullopt, "", std::move(*rec)});
  return out;
}

}  // namespace kev::io
