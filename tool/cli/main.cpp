#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/numeric_options.h"

namespace kev::cli {

std::vector<RegisteredCommand>& registered_commands() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

CommandRegistrar::CommandRegistrar(std::string name, CommandAdder adder) {
  registered_commands().push_back({std::move(name), std::move(adder)});
}

int report(const Error& error) {
  std::cerr << "kernelevo: " << error.to_string() << '\n';
  return static_cast<int>(error.code);
}

void warn(const std::string& message) { std::cerr << "kernelevo: warning: " << message << '\n'; }

}  // namespace kev::cli

int main(int argc, char** argv) {
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
