// Every numeric option of every subcommand, found in the binary's own --help, refuses NaN,
// infinities, negative integers, out-of-range and malformed numbers with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/cli_run.h"

namespace {

namespace fs = std::filesystem;
using kev::test_support::run_kernelevo;

struct NumericOption {
  std::string command;
  std::string name;
  std::string type;  // FLOAT, INT or UINT
};

std::vector<std::string> subcommands() {
  const auto help = run_kernelevo("--help", fs::temp_directory_path());
  std::vector<std::string> out;
  std::istringstream in(help.out);
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      listing = true;
    } else if (listing && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return out;
}

std::vector<NumericOption> numeric_options() {
  std::vector<NumericOption> out;
  const std::regex option(R"(^\s+(?:-\w,)?(--[a-z0-9-]+) (FLOAT|UINT|INT)\b)");
  for (const auto& command : subcommands()) {
    const auto help = run_kernelevo(command + " --help", fs::temp_directory_path());
    std::istringstream in(help.out);
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, option)) out.push_back({command, m[1], m[2]});
    }
  }
  return out;
}

TEST(NumericOptions, EveryOneRefusesNanOrANegativeInteger) {
  const auto options = numeric_options();
  std::set<std::string> names;
  for (const auto& o : options) names.insert(o.command + " " + o.name);
  // The options the gate and the tuner depend on are among those found.
  for (const char* expected : {"check --threshold", "check --min-abs-us", "check --rounds",
                               "check --seed", "compare --min-change", "compare --min-abs-us",
                               "tune --budget", "tune --seed", "evolve --temperature"})
    EXPECT_EQ(names.count(expected), 1u) << expected;

  const fs::path dir = fs::temp_directory_path();
  for (const auto& o : options) {
    const std::string value = o.type == "FLOAT" ? "nan" : "-1";
    const auto run = run_kernelevo(o.command + " " + o.name + " " + value, dir);
    EXPECT_EQ(run.exit_code, 2) << o.command << " " << o.name;
    EXPECT_NE(run.err.find(o.name + ": '" + value + "'"), std::string::npos)
        << o.command << " " << o.name << ": " << run.err;
  }
}

// The same check on one option of each type, with every kind of bad value.
TEST(NumericOptions, RefuseEveryKindOfBadValue) {
  const fs::path dir = fs::temp_directory_path();
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"check --threshold", {"nan", "-nan", "inf", "-inf", "1e999", "0x10", "1.5x", "''"}},
      {"tune --budget", {"-1", "18446744073709551616", "1.5", "12abc", "nan", "0x10", "''"}},
      {"check --rounds", {"-1", "99999999999", "1e3"}}};
  for (const auto& [option, values] : cases) {
    for (const auto& value : values) {
      const auto run = run_kernelevo(option + " " + value, dir);
      EXPECT_EQ(run.exit_code, 2) << option << " " << value;
      EXPECT_NE(run.err.find(option.substr(option.find(' ') + 1) + ": "), std::string::npos)
          << option << " " << value << ": " << run.err;
    }
  }
}

TEST(NumericOptions, TheHiddenWorkerRefusesANegativeDevice) {
  const auto help = run_kernelevo("worker --help", fs::temp_directory_path());
  if (help.exit_code != 0) GTEST_SKIP() << "built without CUDA: no worker subcommand";
  const auto run = run_kernelevo("worker --device -1", fs::temp_directory_path());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--device: '-1' is not a non-negative integer"), std::string::npos)
      << run.err;
}

TEST(NumericOptions, DecimalIntegersWithLeadingZerosAreDecimal) {
  // CLI11 alone reads 010 as octal 8; the budget counts evaluations, so 010 is ten.
  const std::string recording = std::string(KERNELEVO_FIXTURES) + "/spaces/synthetic_kt.json";
  const auto run = run_kernelevo(
      "tune --replay " + kev::test_support::quoted(recording) + " --budget 010 --format json",
      fs::temp_directory_path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out).at("evaluations"), 10);
}

}  // namespace
