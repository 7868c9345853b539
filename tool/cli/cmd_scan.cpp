// `kernelevo scan [PATH...]`: lists the marked kernels and their space sizes ("at least N"
// where counting stopped early), or every spec error found (exit 2). `--format json` also
// gives each spec's problems, arguments, launch geometry, metrics and source defaults, so
// scripts can launch a kernel the way the tuner does.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/spec_json.h"
#include "core/space_summary.h"
#include "io/log_text.h"
#include "io/spec_loader.h"

namespace {

struct ScanArgs {
  std::vector<std::string> paths;
  std::string format = "text";
};

std::string location(const kev::KernelSpec& spec) {
  return spec.source + ":" +
         std::to_string(spec.kernel_line > 0 ? spec.kernel_line : spec.where.line);
}

void print_text(const std::vector<kev::KernelSpec>& specs) {
  for (const auto& spec : specs) {
    const kev::SpaceSummary s = kev::summarize_space(spec);
    std::cout << spec.id << "  " << location(spec) << "  kernel " << spec.kernel << "  params "
              << spec.params.size() << "  space " << kev::to_string(s.total) << "  valid "
              << kev::to_string(s.valid) << '\n';
    for (const auto& p : s.per_problem)
      std::cout << "  problem " << p.problem.to_string() << "  valid " << kev::to_string(p.valid)
                << '\n';
  }
}

nlohmann::ordered_json value_json(const kev::Value& v) {
  if (auto i = v.as_int()) return *i;
  if (v.is_double()) return v.as_double();
  return v.as_string();
}

void print_json(const std::vector<kev::KernelSpec>& specs) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& spec : specs) {
    const kev::SpaceSummary s = kev::summarize_space(spec);
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& p : spec.params) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (const auto& v : p.values) values.push_back(value_json(v));
      params[p.name] = std::move(values);
    }
    nlohmann::ordered_json problems = nlohmann::ordered_json::array();
    for (const auto& p : s.per_problem) {
      nlohmann::ordered_json dims = nlohmann::ordered_json::object();
      for (const auto& [name, value] : p.problem.dims) dims[name] = value;
      problems.push_back(
          {{"problem", std::move(dims)}, {"valid", p.valid.value}, {"exact", p.valid.exact}});
    }
    nlohmann::ordered_json kernel = {{"id", spec.id},
                                     {"kernel", spec.kernel},
                                     {"source", spec.source},
                                     {"line", spec.where.line},
                                     {"kernel_line", spec.kernel_line},
                                     {"params", std::move(params)}};
    kev::cli::add_spec_json(spec, kernel);
    // "exact": false where a count stopped early (and total beyond 2^64 - 1): lower bounds.
    kernel["space"] = {{"total", s.total.value},
                       {"valid", s.valid.value},
                       {"exact", s.total.exact && s.valid.exact},
                       {"problems", std::move(problems)}};
    kernels.push_back(std::move(kernel));
  }
  nlohmann::ordered_json out = {{"schema_version", 1}, {"kernels", std::move(kernels)}};
  std::cout << out.dump(2) << '\n';
}

// One line for every directory a walk left out, so a vendored copy or a build tree is not
// read silently: "skipped 2 directories (...): build, third_party".
void print_skipped(const std::vector<std::string>& skipped) {
  if (skipped.empty()) return;
  constexpr std::size_t kShown = 5;
  std::string names;
  for (std::size_t i = 0; i < skipped.size() && i < kShown; ++i)
    names += (i == 0 ? "" : ", ") + skipped[i];
  if (skipped.size() > kShown) names += " and " + std::to_string(skipped.size() - kShown) + " more";
  std::cerr << kev::io::prefixed_lines(
      "kernelevo: ",
      kev::io::one_line(
          "skipped " + std::to_string(skipped.size()) +
          (skipped.size() == 1 ? " directory" : " directories") +
          " (build trees, other projects, vendored code; name one to scan it): " + names));
}

int run_scan(const ScanArgs& args) {
  const std::vector<std::string> paths =
      args.paths.empty() ? std::vector<std::string>{"."} : args.paths;
  const kev::SpecLoad load = kev::load_specs(paths);
  for (const auto& w : load.warnings) kev::cli::warn(w);
  print_skipped(load.skipped);
  if (!load.errors.empty()) {
    for (const auto& e : load.errors) kev::cli::report(e);
    std::cerr << "kernelevo: " << load.errors.size()
              << (load.errors.size() == 1 ? " error" : " errors") << " in kernel specs\n";
    return static_cast<int>(kev::ExitCode::usage);
  }
  if (args.format == "json") {
    print_json(load.specs);
  } else {
    print_text(load.specs);
  }
  if (load.specs.empty()) std::cerr << "kernelevo: no marked kernels found\n";
  return 0;
}

kev::cli::CommandRegistrar reg{
    "scan", [](CLI::App& app, int& exit_code) {
      static ScanArgs args;
      auto* sub = app.add_subcommand(
          "scan", "List marked kernels and their space sizes, or every spec error");
      sub->add_option("paths", args.paths,
                      ".cu files, kernelevo.yaml files or directories (default: .)");
      sub->add_option("--format", args.format, "text or json")
          ->check(CLI::IsMember({"text", "json"}));
      sub->callback([&exit_code] { exit_code = run_scan(args); });
    }};

}  // namespace
