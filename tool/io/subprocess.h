#pragma once
// Runs a program as a child process without a shell, with an explicit environment and a
// wall-clock limit. The child gets its own process group, so a timeout kills the whole
// tree (nvcc's cicc and ptxas too).
#include <string>
#include <vector>

namespace kev::io {

struct ProcessResult {
  bool started = false;    // false: the program could not be run (see `output`)
  bool timed_out = false;  // killed after the time limit
  int exit_code = -1;      // valid when started && !timed_out && !signalled
  bool signalled = false;
  std::string output;  // stdout and stderr, interleaved
};

// `argv[0]` is the program path (looked up in PATH of `env` when it holds no '/').
// `env` entries are "NAME=value"; nothing else from this process's environment leaks in.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& env,
                                        double timeout_seconds);

// The outcome of run_process_split: stdout and stderr apart, each bounded.
struct SplitProcessResult {
  bool started = false;
  bool timed_out = false;
  bool signalled = false;
  bool too_much_output = false;  // killed for writing more than a limit
  int exit_code = -1;            // valid when started, and neither timed out nor killed
  std::string out;               // stdout, at most the limit
  std::string err;               // stderr, at most the limit
};

// As run_process, with stdout and stderr kept apart (a protocol on stdout, diagnostics on
// stderr); a child that writes more than `max_out_bytes` to stdout or `max_err_bytes` to
// stderr is killed with its process group (checked as it runs, so it cannot fill the disk).
[[nodiscard]] SplitProcessResult run_process_split(const std::vector<std::string>& argv,
                                                   const std::vector<std::string>& env,
                                                   double timeout_seconds,
                                                   std::size_t max_out_bytes,
                                                   std::size_t max_err_bytes);

// A compiler's environment: PATH, HOME and TMPDIR from this process (PATH defaulting to
// /usr/bin:/bin), nothing else, so secrets such as API keys never reach a compiler.
[[nodiscard]] std::vector<std::string> scrubbed_environment();

}  // namespace kev::io
