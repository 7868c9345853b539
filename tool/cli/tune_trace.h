#pragma once
// Wiring of --trace and --resume for both tune paths: the prior evaluations a resumed trace
// holds, and the writer new evaluations are appended to.
#include <optional>
#include <vector>

#include "cli/tune_options.h"
#include "io/trace.h"

namespace kev::cli {

struct TraceSetup {
  std::vector<Evaluation> prior;          // from --resume
  std::optional<io::Trace> resumed;       // a kernel with buckets: --resume's trace as read
  std::optional<io::TraceWriter> writer;  // where new evaluations go, if anywhere
  std::optional<Error> write_error;       // the first failed write; later ones are skipped

  // Appends a new evaluation to the trace, if there is one.
  void record(const Evaluation& e, const SearchSpace& space,
              std::optional<std::size_t> bucket = std::nullopt);
  // A kernel with buckets: the resumed records of `bucket`, as evaluations of its space.
  Result<std::vector<Evaluation>> bucket_prior(std::size_t bucket, const SearchSpace& space,
                                               const std::string& path) const;
};

// --resume FILE reads FILE's evaluations of `space`; new ones are appended to FILE unless
// --trace names another file, which then gets `header`, the prior evaluations and the new.
// A trace timed otherwise or compiled by another compiler than `header` says is refused; one
// that does not say its compiler is taken as compiled by `unsaid_compiler` (what kernelevo
// chose before traces said).
Result<TraceSetup> setup_trace(const TuneOptions& options, const io::TraceHeader& header,
                               const SearchSpace& space, const std::string& unsaid_compiler);

// The same for a kernel with buckets (`header` names them): --resume's records are kept as
// read, for bucket_prior to hand each bucket's search its own.
Result<TraceSetup> setup_bucket_trace(const TuneOptions& options, const io::TraceHeader& header,
                                      const std::string& unsaid_compiler);

// A run of several kernels keeps one trace per kernel: FILE.jsonl becomes FILE.<id>.jsonl
// (FILE.<id> without the extension), for --trace and --resume alike. Empty stays empty.
[[nodiscard]] std::string per_kernel_trace(const std::string& path, const std::string& id);

}  // namespace kev::cli
