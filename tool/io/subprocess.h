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

// A compiler's environment: PATH, HOME and TMPDIR from this process (PATH defaulting to
// /usr/bin:/bin), nothing else, so secrets such as API keys never reach a compiler.
[[nodiscard]] std::vector<std::string> scrubbed_environment();

}  // namespace kev::io
