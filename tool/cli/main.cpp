#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/numeric_options.h"
#include "io/console.h"
#include "io/log_text.h"

namespace kev::cli {

std::vector<RegisteredCommand>& registered_commands() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

CommandRegistrar::CommandRegistrar(std::string name, CommandAdder adder) {
  registered_commands().push_back({std::move(name), std::move(adder)});
}

namespace {

// As Error::to_string, with the location (a file name can hold a newline) kept on one line.
void print_located(const Error& e, const char* kind) {
  const std::string where = e.where.to_string();
  io::Console::standard_error().print(io::prefixed_lines(
      "kernelevo: ", (where.empty() ? "" : io::one_line(where) + ": ") + kind + e.message));
}

}  // namespace

int report(const Error& error) {
  print_located(error, "error: ");
  return static_cast<int>(error.code);
}

void warn(const std::string& message) {
  io::Console::standard_error().print(io::prefixed_lines("kernelevo: ", "warning: " + message));
}

void warn(const Error& warning) { print_located(warning, "warning: "); }

}  // namespace kev::cli

int main(int argc, char** argv) {
  // stderr reaches CI logs, and much of what is printed there quotes files kernelevo does not
  // trust: nothing on it may run as a workflow command, whichever code prints it.
  const kev::io::ScopedCommandGuard stderr_guard(std::cerr);
  CLI::App app{"kernelevo: tune marked CUDA kernels, lock the winners, gate regressions"};
  app.set_version_flag("--version", std::string("kernelevo ") + KERNELEVO_VERSION);
  app.require_subcommand(1);
  int exit_code = 0;
  auto& commands = kev::cli::registered_commands();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& command : commands) command.adder(app, exit_code);
  kev::cli::check_numeric_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(kev::ExitCode::usage);
  }
  return exit_code;
}
