#pragma once
// kernelevo traces (docs/trace-format.md): JSON Lines, a header object then one object per
// evaluation, appended and flushed as each completes, so a killed run keeps all but at most
// its last, partial line. A trace is also a replay input and the input of --resume.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/buckets.h"
#include "core/recording.h"
#include "core/result.h"
#include "core/spec.h"
#include "core/tuner.h"

namespace kev::io {

struct TraceHeader {
  std::string kernel;
  std::vector<Dimension> dims;
  std::string strategy;
  std::uint64_t seed = 0;
  std::string device;
  std::vector<Problem> problems;
  std::string created;  // UTC, ISO 8601
  std::string tool;     // "kernelevo 0.1.0"
  // How its times were taken (core/runner.h's timing_method); a header that does not say
  // reads as the timing kernelevo used before traces said (cold L2, no write-back charged).
  // Empty: not known (a replay's), not written.
  std::string timing;
  // The L2 flush's revision (core/timing_names.h's kFlushRevision): times taken after one
  // flush do not compare with times taken after another. 0: not known (a replay's), not
  // written; a header that does not say reads as kFlushRevisionBeforeTracesSaid.
  int flush = 0;
  // What compiled the timed code: "nvcc" or "nvrtc" (core/compiler.h's DeviceCodeCompiler);
  // empty: the trace does not say (older traces: NVRTC for a source without host code).
  std::string compiler;
  // A spec with `dispatch`: one search per bucket of dimension `dispatch_by`, whose
  // records name their bucket.
  std::string dispatch_by;
  std::vector<BucketRange> buckets;
};

struct TraceRecord {
  ParamSet params;
  Outcome outcome;
  double elapsed_s = 0;
  std::optional<std::size_t> bucket;  // the bucket's search, when the header has buckets
};

struct Trace {
  TraceHeader header;
  std::vector<TraceRecord> records;
  bool truncated = false;  // the last line was cut off (a killed run) and was ignored
};

Result<Trace> parse_trace(const std::string& text, const std::string& path);
Result<Trace> read_trace(const std::string& path);  // plain or gzip
// The trace as a recorded space: its header's dimensions, its records' outcomes.
Result<Recording> recording_from_trace(const Trace& trace, const std::string& path);
[[nodiscard]] bool looks_like_trace(const std::string& text);

// A resumed trace's records as evaluations of `space` (in trace order). Records whose
// parameters are not a point of the space are an error: the trace is of another space.
Result<std::vector<Evaluation>> trace_evaluations(const Trace& trace, const SearchSpace& space,
                                                  const std::string& path);
TraceRecord trace_record(const Evaluation& evaluation, const SearchSpace& space,
                         std::optional<std::size_t> bucket = std::nullopt);
// The trace of one bucket's search: the header's problems those of the bucket, its records.
[[nodiscard]] Trace bucket_trace(const Trace& trace, std::size_t bucket);

std::string trace_header_line(const TraceHeader& header);
std::string trace_record_line(const TraceRecord& record);

// Appends records to a trace file, one flushed line each.
class TraceWriter {
 public:
  // Creates (truncates) `path` and writes the header.
  static Result<TraceWriter> create(const std::string& path, const TraceHeader& header);
  // Opens an existing trace to append to (resume). A cut-off last line is dropped first.
  static Result<TraceWriter> append(const std::string& path);
  Status write(const TraceRecord& record);

 private:
  TraceWriter(std::string path, std::FILE* f) : path_(std::move(path)), file_(f, &std::fclose) {}
  std::string path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
};

}  // namespace kev::io
