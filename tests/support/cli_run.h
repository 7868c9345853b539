#pragma once
// Running the built kernelevo (or any shell command line) from a test: exit code, stdout
// and stderr, plus the small file helpers such tests need.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kev::test_support {

struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Single-quoted for the shell (the tests' paths hold no single quotes).
inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Runs `command` (a shell command line) in directory `cwd`.
inline CommandRun run_in(const std::filesystem::path& cwd, const std::string& command) {
  const std::filesystem::path err_file = std::filesystem::temp_directory_path() /
                                         ("kernelevo-test-stderr-" + std::to_string(::getpid()));
  const std::string line =
      "cd " + quoted(cwd.string()) + " && " + command + " 2>" + quoted(err_file.string());
  CommandRun run;
  FILE* pipe = ::popen(line.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (std::size_t n = 0; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = read_text(err_file);
  std::error_code ec;
  std::filesystem::remove(err_file, ec);
  return run;
}

// Runs the kernelevo under test with `args` (already shell-quoted), after `env` (shell
// assignments such as "A='x' B=1", or empty), in directory `cwd`.
inline CommandRun run_kernelevo(const std::string& args, const std::filesystem::path& cwd,
                                const std::string& env = {}) {
  return run_in(cwd, (env.empty() ? "" : env + " ") + quoted(KERNELEVO_BINARY) + " " + args);
}

}  // namespace kev::test_support
