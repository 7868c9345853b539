// `kernelevo report INPUT.json`: renders a report (from check, compare, or a lockfile as a
// tune report) as Markdown, HTML, JSON, Google Benchmark JSON or GitHub annotations.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "core/lock_report.h"
#include "io/compressed_file.h"
#include "io/lockfile_json.h"
#include "io/report_annotations.h"
#include "io/report_gbench.h"
#include "io/report_html.h"
#include "io/report_json.h"
#include "io/report_markdown.h"

namespace {

struct ReportArgs {
  std::string input;
  std::string format = "markdown";
  std::string output;
  std::vector<std::string> traces;
  std::string path_prefix;
  std::string arch;
  std::string device;
};

kev::Result<kev::Report> load_input(const ReportArgs& args) {
  auto text = kev::io::read_maybe_gzip(args.input);
  if (!text) return text.error();
  if (kev::io::looks_like_report_json(*text)) return kev::io::parse_report_json(*text, args.input);
  if (text->find("\"schema_version\"") != std::string::npos) {
    auto lock = kev::parse_lockfile(*text, args.input);
    if (!lock) return lock.error();
    kev::LockReportFilter filter;
    if (!args.arch.empty()) filter.arch = args.arch;
    if (!args.device.empty()) filter.device = args.device;
    kev::Report r = kev::report_from_lockfile(*lock, filter);
    r.tool = std::string("kernelevo ") + KERNELEVO_VERSION;
    return r;
  }
  return kev::make_error(
      "neither a kernelevo report (\"schema\": \"kernelevo-report\") nor a lockfile",
      {args.input, 1, 1});
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
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
  std::string out;
  if (args.format == "markdown") {
    out = kev::io::report_markdown(*report);
  } else if (args.format == "json") {
    out = kev::io::report_to_json(*report);
  } else if (args.format == "gbench") {
    out = kev::io::report_gbench(*report, host_name());
  } else if (args.format == "annotations") {
    out = kev::io::report_annotations(*report);
  } else {
    std::vector<kev::io::Convergence> series;
    for (const auto& path : args.traces) {
      auto trace = kev::io::read_trace(path);
      if (!trace) return kev::cli::report(trace.error());
      series.push_back(kev::io::convergence_from_trace(*trace));
    }
    out = kev::io::report_html(*report, series);
  }
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
      sub->callback([&exit_code] { exit_code = run_report(args); });
    }};

}  // namespace
