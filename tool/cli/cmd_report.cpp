// `kernelevo report INPUT.json`: renders a report (from check, compare, or a lockfile as a
// tune report) as Markdown, HTML, JSON, Google Benchmark JSON or GitHub annotations.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli/tune_report.h"
#include "io/compressed_file.h"
#include "io/report_json.h"

namespace {

struct ReportArgs {
  std::string input;
  std::string format = "markdown";
  std::string output;
  std::vector<std::string> traces;
  std::string path_prefix;
  std::string arch;
  std::string device;
  std::string base_lockfile;
};

kev::Result<kev::Report> load_input(const ReportArgs& args) {
  auto text = kev::io::read_maybe_gzip(args.input);
  if (!text) return text.error();
  if (kev::io::looks_like_report_json(*text)) {
    if (!args.base_lockfile.empty())
      return kev::make_error("--base-lockfile applies to a lockfile, not to a report",
                             {args.input, 1, 1});
    return kev::io::parse_report_json(*text, args.input);
  }
  if (text->find("\"schema_version\"") != std::string::npos) {
    kev::LockReportFilter filter;
    if (!args.arch.empty()) filter.arch = args.arch;
    if (!args.device.empty()) filter.device = args.device;
    std::optional<kev::Lockfile> base;
    if (!args.base_lockfile.empty()) {
      auto read = kev::cli::read_base_lockfile(args.base_lockfile);
      if (!read) return read.error();
      base = std::move(*read);
    }
    return kev::cli::tune_report_from_lockfile(*text, args.input, filter, base ? &*base : nullptr);
  }
  return kev::make_error(
      "neither a kernelevo report (\"schema\": \"kernelevo-report\") nor a lockfile",
      {args.input, 1, 1});
}

int run_report(const ReportArgs& args) {
  auto report = load_input(args);
  if (!report) return kev::cli::report(report.error());
  if (!args.path_prefix.empty()) {
    std::string prefix = args.path_prefix;
    if (prefix.back() != '/') prefix += '/';
    for (auto& k : report->kernels)
      if (!k.source.empty() && k.source.front() != '/') k.source = prefix + k.source;
  }
  std::vector<kev::io::Convergence> series;
  if (args.format == "html") {
    auto read = kev::cli::read_convergence(args.traces);
    if (!read) return kev::cli::report(read.error());
    series = std::move(*read);
  }
  const std::string out = kev::cli::render_report(*report, args.format, series);
  if (args.output.empty() || args.output == "-") {
    std::cout << out;
    return 0;
  }
  std::ofstream file(args.output, std::ios::binary);
  file << out;
  file.close();
  if (!file) return kev::cli::report(kev::make_error("cannot write " + args.output));
  return 0;
}

kev::cli::CommandRegistrar reg{
    "report", [](CLI::App& app, int& exit_code) {
      static ReportArgs args;
      auto* sub = app.add_subcommand("report", "Render a check/compare report or a lockfile");
      sub->add_option("input", args.input, "A kernelevo report JSON, or a lockfile (a tune report)")
          ->required();
      sub->add_option("--format", args.format,
                      "markdown (default), html, json, gbench or annotations")
          ->check(CLI::IsMember({"markdown", "html", "json", "gbench", "annotations"}));
      sub->add_option("-o,--output", args.output, "Write here instead of stdout");
      sub->add_option("--trace", args.traces, "Traces for the HTML best-so-far chart (repeatable)");
      sub->add_option("--path-prefix", args.path_prefix,
                      "Prefix for source paths (the project's directory inside the repository)");
      sub->add_option("--arch", args.arch, "Lockfile input: only this architecture");
      sub->add_option("--device", args.device, "Lockfile input: only this device");
      sub->add_option("--base-lockfile", args.base_lockfile,
                      "Lockfile input: the lockfile before the tune (old -> new per entry; "
                      "default: against the source defaults)");
      sub->callback([&exit_code] { exit_code = run_report(args); });
    }};

}  // namespace
