#include "cli/tune_trace.h"

#include <filesystem>

#include "io/log_text.h"

namespace kev::cli {

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

// Times taken one way do not compare with times taken another: a trace timed after another
// L2 flush (`header.flush`) or otherwise than this run times (`header.timing`), when known, is
// not resumed.
Status same_timing(const io::Trace& trace, const io::TraceHeader& header, const std::string& path) {
  if (header.flush != 0 && trace.header.flush != header.flush)
    return make_error(
        "the trace was timed after the L2 flush of revision " + std::to_string(trace.header.flush) +
            " and this kernelevo flushes as revision " + std::to_string(header.flush) +
            " (docs/evaluator.md): its times would not compare with new ones; tune "
            "afresh with --trace",
        {path});
  if (header.timing.empty() || trace.header.timing == header.timing) return ok_status();
  constexpr std::size_t kShown = 64;  // the trace's text, on one line and short
  const std::string& theirs = trace.header.timing;
  const std::string shown =
      io::one_line(theirs.substr(0, kShown)) + (theirs.size() > kShown ? "..." : "");
  return make_error("the trace was timed as " + shown + " and this kernelevo times as " +
                        header.timing +
                        ": its times would not compare with new ones; tune afresh with --trace",
                    {path});
}

// Code from one compiler does not time like another's (registers, spills): a trace whose
// code another compiler made is not resumed.
Status same_compiler(const io::Trace& trace, const io::TraceHeader& header,
                     const std::string& unsaid_compiler, const std::string& path) {
  const std::string& theirs =
      trace.header.compiler.empty() ? unsaid_compiler : trace.header.compiler;
  if (header.compiler.empty() || theirs.empty() || theirs == header.compiler) return ok_status();
  return make_error("the trace's code was compiled by " + theirs + " and this run compiles with " +
                        header.compiler +
                        ": its times would not compare with new ones; tune afresh with --trace, "
                        "or resume with --compiler " +
                        theirs,
                    {path});
}

// Both checks a resumed trace must pass.
Status resumable(const io::Trace& trace, const io::TraceHeader& header,
                 const std::string& unsaid_compiler, const std::string& path) {
  if (auto st = same_timing(trace, header, path); !st) return st;
  return same_compiler(trace, header, unsaid_compiler, path);
}

}  // namespace

void TraceSetup::record(const Evaluation& e, const SearchSpace& space,
                        std::optional<std::size_t> bucket) {
  if (!writer || write_error) return;
  if (auto st = writer->write(io::trace_record(e, space, bucket)); !st) write_error = st.error();
}

Result<std::vector<Evaluation>> TraceSetup::bucket_prior(std::size_t bucket,
                                                         const SearchSpace& space,
                                                         const std::string& path) const {
  if (!resumed) return std::vector<Evaluation>{};
  return io::trace_evaluations(io::bucket_trace(*resumed, bucket), space, path);
}

namespace {

// Where new records go: appended to --resume's file, unless --trace names another file,
// which gets `header` and the `resumed` records first.
Status open_writer(const TuneOptions& options, const io::TraceHeader& header,
                   const std::vector<io::TraceRecord>& resumed, TraceSetup& setup) {
  if (!options.resume.empty() &&
      (options.trace.empty() || same_file(options.trace, options.resume))) {
    auto writer = io::TraceWriter::append(options.resume);
    if (!writer) return writer.error();
    setup.writer.emplace(std::move(*writer));
    return ok_status();
  }
  if (options.trace.empty()) return ok_status();
  auto writer = io::TraceWriter::create(options.trace, header);
  if (!writer) return writer.error();
  for (const auto& r : resumed)
    if (auto st = writer->write(r); !st) return st.error();
  setup.writer.emplace(std::move(*writer));
  return ok_status();
}

}  // namespace

Result<TraceSetup> setup_bucket_trace(const TuneOptions& options, const io::TraceHeader& header,
                                      const std::string& unsaid_compiler) {
  TraceSetup setup;
  if (!options.resume.empty()) {
    auto trace = io::read_trace(options.resume);
    if (!trace) return trace.error();
    if (auto st = resumable(*trace, header, unsaid_compiler, options.resume); !st)
      return st.error();
    if (trace->header.buckets != header.buckets || trace->header.dispatch_by != header.dispatch_by)
      return make_error(
          "the trace's buckets are not the spec's (the spec changed); tune afresh "
          "with --trace",
          {options.resume});
    setup.resumed = std::move(*trace);
  }
  const std::vector<io::TraceRecord> none;
  if (auto st = open_writer(options, header, setup.resumed ? setup.resumed->records : none, setup);
      !st)
    return st.error();
  return setup;
}

Result<TraceSetup> setup_trace(const TuneOptions& options, const io::TraceHeader& header,
                               const SearchSpace& space, const std::string& unsaid_compiler) {
  TraceSetup setup;
  if (!options.resume.empty()) {
    auto trace = io::read_trace(options.resume);
    if (!trace) return trace.error();
    if (auto st = resumable(*trace, header, unsaid_compiler, options.resume); !st)
      return st.error();
    auto prior = io::trace_evaluations(*trace, space, options.resume);
    if (!prior) return prior.error();
    setup.prior = std::move(*prior);
  }
  std::vector<io::TraceRecord> resumed;
  for (const auto& e : setup.prior) resumed.push_back(io::trace_record(e, space));
  if (auto st = open_writer(options, header, resumed, setup); !st) return st.error();
  return setup;
}

std::string per_kernel_trace(const std::string& path, const std::string& id) {
  if (path.empty()) return path;
  const auto dot = path.rfind(".jsonl");
  return dot == std::string::npos ? path + "." + id
                                  : path.substr(0, dot) + "." + id + path.substr(dot);
}

}  // namespace kev::cli
