#pragma once
// Each subcommand lives in its own cmd_<name>.cpp and registers itself here, so adding a
// command touches no other file.
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace CLI {
class App;
}

namespace kev::cli {

// Adds a subcommand to `app`. The subcommand's callback stores its exit code in `exit_code`.
using CommandAdder = std::function<void(CLI::App& app, int& exit_code)>;

struct CommandRegistrar {
  CommandRegistrar(std::string name, CommandAdder adder);
};

struct RegisteredCommand {
  std::string name;
  CommandAdder adder;
};
std::vector<RegisteredCommand>& registered_commands();

// The one place errors are printed: "kernelevo: file:line:col: error: message" on stderr.
// Returns the error's exit code as int.
int report(const Error& error);
void warn(const std::string& message);  // "warning: ..." on stderr
// A warning that has a place: "file:line:col: warning: ...", as errors are worded.
void warn(const Error& warning);

}  // namespace kev::cli
