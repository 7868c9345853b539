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
  std::optional<io::TraceWriter> writer;  // where new evaluations go, if anywhere
  std::optional<Error> write_error;       // the first failed write; later ones are skipped

  // Appends a new evaluation to the trace, if there is one.
  void record(const Evaluation& e, const SearchSpace& space);
};

// --resume FILE reads FILE's evaluations of `space`; new ones are appended to FILE unless
// --trace names another file, which then gets `header`, the prior evaluations and the new.
Result<TraceSetup> setup_trace(const TuneOptions& options, const io::TraceHeader& header,
                               const SearchSpace& space);

// A run of several kernels keeps one trace per kernel: FILE.jsonl becomes FILE.<id>.jsonl
// (FILE.<id> without the extension), for --trace and --resume alike. Empty stays empty.
[[nodiscard]] std::string per_kernel_trace(const std::string& path, const std::string& id);

}  // namespace kev::cli
