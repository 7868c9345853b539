// `kernelevo header --source FILE --out DIR [--lockfile FILE] [--archs LIST] [--device NAME]
// [--strict] [--spec kernelevo.yaml] [--settings LINES --settings-json FILE]
// [--depfile FILE --depfile-target FILE] [--other-source FILE...]`: writes
// DIR/kernelevo/params.h, the marked source's tuned values for the build (DESIGN.md
// section 8), only when its content changes; with --settings, also the source's compile
// settings as JSON for the tuner (io/compile_settings.h); with --depfile, a dependency file
// naming the source and the lockfile (cli/build_depfile.h). --other-source names the
// target's sources that are not marked: one that defines a parameter the lockfile tunes
// without an `#ifndef` guard (itself or in a header it includes by "...") fails the step,
// since it would build its own value rather than the generated one. With --settings, host
// code of the source that uses at compile time a parameter the built architectures lock
// differently fails the step too (cli/host_use_check.h).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "cli/build_depfile.h"
#include "cli/command.h"
#include "cli/host_use_check.h"
#include "io/compile_settings.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/header_gen.h"
#include "io/lockfile_json.h"
#include "io/macro_scan.h"
#include "io/spec_loader.h"

namespace {

struct HeaderArgs {
  std::string source;
  std::string out;
  std::string lockfile = kev::kLockfileName;
  std::string archs;
  std::string device;
  std::vector<std::string> spec_files;
  std::vector<std::string> other_sources;
  std::string settings;
  std::string settings_json;
  std::string depfile;
  std::string depfile_target;
  std::vector<std::string> variant_files;  // the build compiles these in the source's place
  std::string variant_include;             // what each of them includes
  bool strict = false;
};

kev::Result<kev::CompileSettings> write_settings(const HeaderArgs& args) {
  const auto text = kev::read_regular_file(args.settings, kev::kMaxSourceBytes);
  if (!text) return text.error();
  auto settings = kev::parse_compile_settings_lines(*text, args.settings);
  if (!settings) return settings.error();
  auto written = kev::write_if_changed(args.settings_json, kev::compile_settings_json(*settings));
  if (!written) return written.error();
  return settings;
}

// With the build's settings known, host code of the source must not use at compile time a
// parameter the built architectures disagree on (cli/host_use_check.h).
int check_host_uses(const HeaderArgs& args, const std::string& text,
                    const kev::CompileSettings& settings, const std::vector<std::string>& archs,
                    const kev::GeneratedHeader& header) {
  if (header.host_disagreements.empty() || archs.empty()) return 0;
  kev::cli::HostUseCheck check{args.source, text, args.out, settings, archs, {}};
  for (const auto& d : header.host_disagreements) check.disagreements.push_back({d.name, d.values});
  const kev::cli::HostUseVerdict verdict = kev::cli::check_host_compile_time_uses(check);
  for (const auto& w : verdict.warnings) kev::cli::warn(w);
  if (verdict.uses.empty()) return 0;
  for (std::size_t i = 0; i + 1 < verdict.uses.size(); ++i) kev::cli::report(verdict.uses[i]);
  return kev::cli::report(verdict.uses.back());
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

// The other sources' definitions of tuned parameters that would win over the generated ones.
kev::Result<std::vector<std::filesystem::path>> check_other_sources(
    const HeaderArgs& args, const std::vector<std::string>& tuned) {
  const std::set<std::string, std::less<>> names(tuned.begin(), tuned.end());
  std::vector<std::filesystem::path> sources(args.other_sources.begin(), args.other_sources.end());
  auto scan = kev::scan_unguarded_defines(sources, names);
  if (!scan) return scan.error();
  if (scan->defines.empty()) return std::move(scan->files);
  for (std::size_t i = 0; i + 1 < scan->defines.size(); ++i) {
    const auto& d = scan->defines[i];
    kev::cli::report(kev::make_error("defines " + d.name + " without `#ifndef " + d.name + "`",
                                     {d.file.string(), d.line, 0}));
  }
  const auto& d = scan->defines.back();
  return kev::make_error(
      "defines " + d.name + " without `#ifndef " + d.name + "`, so this file builds its own " +
          d.name + " while the kernels of " + args.source +
          " build the value locked in the lockfile: guard it with `#ifndef " + d.name +
          "` (every source of the target then gets the generated value) or rename it",
      {d.file.string(), d.line, 0});
}

int run_header(const HeaderArgs& args) {
  using kev::cli::report;
  std::optional<kev::CompileSettings> settings;
  if (!args.settings.empty()) {
    auto written = write_settings(args);
    if (!written) return report(written.error());
    settings = std::move(*written);
  }
  const auto text = kev::read_regular_file(args.source, kev::kMaxSourceBytes);
  if (!text) return report(text.error());

  // The kernels marked in the source, plus any a project kernelevo.yaml assigns to it.
  // A project kernelevo.yaml removed after configuring is no longer read (the depfile names
  // its directory, so one put back is read again).
  std::vector<std::string> paths{args.source};
  for (const auto& s : args.spec_files)
    if (std::filesystem::exists(s)) paths.push_back(s);
  const kev::SpecLoad load = kev::load_specs(paths);
  if (!load.errors.empty()) {
    for (const auto& e : load.errors) report(e);
    return static_cast<int>(kev::ExitCode::usage);
  }
  std::vector<kev::KernelSpec> specs;
  for (const auto& spec : load.specs)
    if (spec.source == args.source || same_file(spec.source, args.source)) specs.push_back(spec);

  auto archs = kev::parse_cuda_architectures(args.archs);
  if (!archs) return report(archs.error());

  kev::HeaderOptions options;
  options.source_name = args.source;
  options.source_text = *text;
  options.source_hash = kev::sha256_of(options.source_text);
  options.lockfile_name = args.lockfile;
  options.archs = *archs;
  if (!args.device.empty()) options.device = args.device;
  options.strict = args.strict;

  std::optional<kev::Lockfile> lock;
  if (std::filesystem::exists(args.lockfile)) {
    auto read = kev::read_lockfile(args.lockfile);
    if (!read) return report(read.error());
    lock = std::move(read.value());
  } else if (!specs.empty()) {
    std::cerr << "kernelevo: no lockfile at " << args.lockfile << "; " << args.source
              << " builds with its source defaults\n";
  }

  auto header = kev::generate_params_header(specs, lock ? &*lock : nullptr, options);
  if (!header) return report(header.error());
  for (const auto& w : header->warnings) kev::cli::warn(w);
  auto scanned = check_other_sources(args, header->tuned);
  if (!scanned) return report(scanned.error());
  const auto path = std::filesystem::path(args.out) / "kernelevo" / "params.h";
  auto written = kev::write_if_changed(path.string(), header->text);
  if (!written) return report(written.error());
  for (std::size_t slot = 0; slot < args.variant_files.size(); ++slot) {
    auto slot_text = kev::variant_slot_text(header->dispatch, slot, args.variant_files.size(),
                                            args.variant_include, args.source, *text);
    if (!slot_text) return report(slot_text.error());
    auto slot_written = kev::write_if_changed(args.variant_files[slot], *slot_text);
    if (!slot_written) return report(slot_written.error());
  }
  if (settings) {
    if (const int rc = check_host_uses(args, *text, *settings, *archs, *header); rc != 0) return rc;
  }
  if (!args.depfile.empty()) {
    std::error_code ec;
    std::vector<std::filesystem::path> depends{std::filesystem::absolute(args.source, ec)};
    depends.insert(depends.end(), scanned->begin(), scanned->end());
    const std::vector<std::filesystem::path> spec_paths(args.spec_files.begin(),
                                                        args.spec_files.end());
    const std::string target = args.depfile_target.empty() ? path.string() : args.depfile_target;
    auto dep =
        kev::cli::write_build_depfile(args.depfile, target, depends, args.lockfile, spec_paths);
    if (!dep) return report(dep.error());
  }
  return 0;
}

kev::cli::CommandRegistrar reg{
    "header", [](CLI::App& app, int& exit_code) {
      static HeaderArgs args;
      auto* sub = app.add_subcommand(
          "header", "Write a marked source's kernelevo/params.h from the lockfile");
      sub->add_option("--source", args.source, "The marked .cu source")->required();
      sub->add_option("--out", args.out, "Directory to write kernelevo/params.h under")->required();
      sub->add_option("--lockfile", args.lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option(
          "--archs", args.archs,
          "The build's CMAKE_CUDA_ARCHITECTURES (\"80;90\"); empty: decided at compile time");
      sub->add_option("--device", args.device,
                      "Use this device's entries where an architecture has several");
      sub->add_option("--spec", args.spec_files,
                      "A project kernelevo.yaml that may mark kernels of the source");
      sub->add_option("--settings", args.settings,
                      "Compile settings as written by cmake/KernelEvo.cmake");
      sub->add_option("--settings-json", args.settings_json,
                      "Where to write them as JSON for the tuner")
          ->needs(sub->get_option("--settings"));
      sub->get_option("--settings")->needs(sub->get_option("--settings-json"));
      sub->add_option("--depfile", args.depfile,
                      "Also write a dependency file naming the source and the lockfile");
      sub->add_option("--depfile-target", args.depfile_target,
                      "The target the dependency file names (default: the header)");
      sub->add_option("--variant-file", args.variant_files,
                      "A file the build compiles in the source's place, one per compiled variant "
                      "of a kernel with `dispatch` (empty where there are fewer)");
      sub->add_option("--variant-include", args.variant_include,
                      "The source as the build selects it, which each variant file includes");
      sub->add_flag("--strict", args.strict,
                    "An entry tuned on another version of the source is an error");
      sub->add_option("--other-source", args.other_sources,
                      "A source of the target that is not marked: defining a tuned parameter "
                      "without #ifndef there is an error");
      sub->callback([&exit_code] { exit_code = run_header(args); });
    }};

}  // namespace
