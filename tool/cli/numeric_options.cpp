#include "cli/numeric_options.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace kev::cli {
namespace {

const CLI::Validator kFiniteNumber(
    [](std::string& text) -> std::string {
      double value = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, ec] = std::from_chars(text.data(), end, value);
      if (ec != std::errc() || ptr != end || !std::isfinite(value))
        return "'" + text + "' is not a finite number";
      return {};
    },
    "");

const CLI::Validator kNonNegativeInteger(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, ec] = std::from_chars(text.data(), end, value);
      if (text.empty() || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
        return "'" + text + "' is not a non-negative integer";
      if (ec == std::errc::result_out_of_range) return "'" + text + "' does not fit in 64 bits";
      text = std::to_string(value);  // "010" is ten, not CLI11's octal eight
      return {};
    },
    "");

bool has_type(const CLI::Option& option, const std::string& type) {
  const std::string name = option.get_type_name();
  return name == type || name.rfind(type + ":", 0) == 0;
}

}  // namespace

void check_numeric_options(CLI::App& app) {
  // transform() puts the check before the option's own (ranges), so it runs first.
  for (CLI::Option* option : app.get_options()) {
    if (has_type(*option, "FLOAT")) {
      option->transform(kFiniteNumber);
    } else if (has_type(*option, "INT") || has_type(*option, "UINT")) {
      option->transform(kNonNegativeInteger);
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_numeric_options(*sub);
}

}  // namespace kev::cli
