#pragma once
// Loads a recorded space for replay: a Kernel Tuner cachefile, a T4 results file or a
// kernelevo trace, plain or gzip-compressed; the format is detected from the content.
#include <optional>
#include <string>
#include <vector>

#include "core/buckets.h"
#include "core/recording.h"
#include "core/result.h"

namespace kev::io {

Result<Recording> read_recording(const std::string& path);
// The same, from text already in memory (`path` only names it in errors).
Result<Recording> parse_recording(const std::string& text, const std::string& path);

// A recording whose searches are per bucket (a kernelevo trace of a kernel with `dispatch`)
// is one recording per bucket; any other is one part without a bucket.
struct RecordingPart {
  std::optional<std::size_t> bucket;
  std::string bucket_label;  // "cols [0, 2048)"
  Recording recording;
};
struct Recordings {
  std::string by;  // the buckets' dimension (empty without buckets)
  std::vector<BucketRange> buckets;
  std::vector<RecordingPart> parts;
};
Result<Recordings> read_recordings(const std::string& path);

}  // namespace kev::io
