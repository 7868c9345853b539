// `kernelevo select-source --source FILE --out FILE [--lockfile FILE] [--depfile FILE]
// [--spec kernelevo.yaml] [--strict]` (hidden; run by cmake/KernelEvo.cmake at build time):
// writes the text a build compiles for a marked source, the variant `evolve` recorded while
// it is current, else an #include of the original (io/source_selection.h), only when its
// content changes. The depfile names the variant files, so editing one re-runs this step.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <vector>

#include "cli/build_depfile.h"
#include "cli/command.h"
#include "io/header_gen.h"
#include "io/lockfile_json.h"
#include "io/log_text.h"
#include "io/source_selection.h"
#include "io/spec_loader.h"

namespace kev::cli {
namespace {

struct SelectArgs {
  std::string source;
  std::string out;
  std::string lockfile = kLockfileName;
  std::string depfile;
  std::string depfile_target;
  std::vector<std::string> spec_files;
  bool strict = false;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

// The kernels a project kernelevo.yaml specifies for `source` (those the source marks are
// read from it by select_source).
Result<std::map<std::string, KernelNames>> project_kernels(const SelectArgs& args) {
  std::map<std::string, KernelNames> out;
  // One removed after configuring is skipped (the depfile names its directory).
  std::vector<std::string> specs;
  for (const auto& s : args.spec_files)
    if (std::filesystem::exists(s)) specs.push_back(s);
  if (specs.empty()) return out;
  const SpecLoad load = load_specs(specs);
  if (!load.errors.empty()) {
    for (std::size_t i = 0; i + 1 < load.errors.size(); ++i) report(load.errors[i]);
    return load.errors.back();
  }
  for (const auto& spec : load.specs)
    if (same_file(spec.source, args.source))
      out.emplace(spec.id, KernelNames{args.source, spec.kernel, spec.reference});
  return out;
}

int run_select(const SelectArgs& args) {
  std::optional<Lockfile> lock;
  std::error_code ec;
  if (std::filesystem::exists(args.lockfile, ec)) {
    auto read = read_lockfile(args.lockfile);
    if (!read) return report(read.error());
    lock = std::move(read.value());
  }
  SelectOptions options;
  options.source = args.source;
  options.lockfile = args.lockfile;
  options.source_name = args.source;
  options.strict = args.strict;
  if (lock) {
    auto kernels = project_kernels(args);
    if (!kernels) return report(kernels.error());
    options.kernels = std::move(*kernels);
  }
  auto selected = select_source(lock ? &*lock : nullptr, options);
  if (!selected) return report(selected.error());
  for (const auto& note : selected->notes) std::cerr << io::prefixed_lines("kernelevo: ", note);
  if (auto w = write_if_changed(args.out, selected->text); !w) return report(w.error());
  if (!args.depfile.empty()) {
    const std::string target = args.depfile_target.empty() ? args.out : args.depfile_target;
    // The original first: a depfile naming nothing reads as missing, and its step as dirty.
    std::vector<std::filesystem::path> depends{std::filesystem::absolute(args.source, ec)};
    depends.insert(depends.end(), selected->depends.begin(), selected->depends.end());
    const std::vector<std::filesystem::path> specs(args.spec_files.begin(), args.spec_files.end());
    if (auto w = write_build_depfile(args.depfile, target, depends, args.lockfile, specs); !w)
      return report(w.error());
  }
  return 0;
}

CommandRegistrar reg{
    "select-source", [](CLI::App& app, int& exit_code) {
      static SelectArgs args;
      auto* sub = app.add_subcommand(
          "select-source", "Write the text a build compiles for a marked source (internal)");
      sub->group("");  // hidden from --help: cmake/KernelEvo.cmake runs it
      sub->add_option("--source", args.source, "The marked .cu source")->required();
      sub->add_option("--out", args.out, "The file to write")->required();
      sub->add_option("--lockfile", args.lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option("--depfile", args.depfile,
                      "Also write a dependency file naming the variant files and the lockfile");
      sub->add_option("--depfile-target", args.depfile_target,
                      "The target the dependency file names (default: --out)");
      sub->add_option("--spec", args.spec_files,
                      "A project kernelevo.yaml that may specify kernels of the source");
      sub->add_flag("--strict", args.strict, "A recorded variant that is not current is an error");
      sub->callback([&exit_code] { exit_code = run_select(args); });
    }};

}  // namespace
}  // namespace kev::cli
