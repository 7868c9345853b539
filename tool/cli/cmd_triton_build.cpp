// `kernelevo triton-build --source K.py --out-dir DIR [--lockfile L] [--archs "80;90"]
// [--device NAME] [--strict] [--depfile F --depfile-target T]` (hidden; run by
// cmake/KernelEvo.cmake at build time): compiles the locked configuration of every Triton
// kernel marked in K.py for each built architecture, without a GPU, and writes
// DIR/<stem>_triton.h and DIR/<stem>_triton.cpp: the CUBINs as byte arrays and a launcher
// through the CUDA driver API (io/triton_launcher_gen.h); an entry with a winner per bucket
// (the spec's `dispatch`) builds each bucket's winner, compiled once per distinct one, and the
// launcher picks by size. Exit 3 without Triton.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/command.h"
#include "core/lockfile.h"
#include "core/source_defaults.h"
#include "cuda/gpu_backend.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/header_gen.h"
#include "io/lockfile_json.h"
#include "io/spec_loader.h"
#include "io/triton_launcher_gen.h"

namespace kev::cli {
namespace {

namespace fs = std::filesystem;

struct TritonBuildArgs {
  std::string source;
  std::string out_dir;
  std::string lockfile = "kernelevo.lock.json";
  std::string archs;
  std::string device;
  bool strict = false;
  std::string depfile;
  std::string depfile_target;
};

std::string escape_make(const std::string& path) {
  std::string out;
  for (const char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out.push_back('\\');
    if (c == '$') out.push_back('$');
    out.push_back(c);
  }
  return out;
}

int run_triton_build(const TritonBuildArgs& args) {
  const SpecLoad load = load_specs({args.source});
  for (const auto& w : load.warnings) warn(w);
  if (!load.errors.empty()) {
    int rc = 0;
    for (const auto& e : load.errors) rc = report(e);
    return rc;
  }
  std::vector<const KernelSpec*> specs;
  for (const auto& s : load.specs)
    if (s.language == SourceLanguage::triton) specs.push_back(&s);
  if (specs.empty()) return report(make_error("no Triton kernel is marked in " + args.source));
  auto archs = parse_cuda_architectures(args.archs);
  if (!archs) return report(archs.error());
  if (archs->empty()) {
    warn(make_error("the build's CUDA architectures are not a list (" +
                    (args.archs.empty() ? std::string("none") : args.archs) +
                    "); compiling the Triton kernels for sm_90"));
    archs->push_back("sm_90");
  }
  auto lock = read_lockfile_or_empty(args.lockfile);
  if (!lock) return report(lock.error());
  const auto text = read_regular_file(args.source, kMaxSourceBytes);
  if (!text) return report(text.error());
  const std::string source_hash = sha256_of(*text);

  if (auto why = cuda::triton_unavailable())
    return report(make_error(*why, {}, ExitCode::environment));
  const std::optional<std::string> device =
      args.device.empty() ? std::nullopt : std::optional<std::string>(args.device);

  std::vector<TritonLauncher> parts;
  std::vector<std::string> deps = {fs::absolute(args.source).string()};
  for (const KernelSpec* spec : specs) {
    auto defaults = source_defaults(*text, *spec);
    if (!defaults) return report(defaults.error());
    std::vector<TritonBuiltImage> images;
    for (const auto& arch : *archs) {
      // (configuration, bucket) pairs to build for this architecture: the locked winner, one
      // per bucket for an entry with buckets, else the source defaults.
      std::vector<std::pair<ParamSet, std::optional<BucketRange>>> builds;
      const LockChoice choice = lookup(*lock, spec->id, arch, device);
      if (choice.entry == nullptr) {
        builds.emplace_back(*defaults, std::nullopt);
      } else {
        const LockEntry& entry = *choice.entry;
        if (entry.has_buckets() && !spec->dispatch)
          return report(make_error(args.lockfile + ": kernel " + spec->id + " (" + choice.arch +
                                       ") has a winner per bucket of '" + entry.by +
                                       "', but its spec has no dispatch",
                                   spec->where));
        if (entry.has_buckets() && entry.by != spec->dispatch->by)
          return report(make_error(args.lockfile + ": kernel " + spec->id + " (" + choice.arch +
                                       ") has buckets of '" + entry.by +
                                       "', its spec dispatches by '" + spec->dispatch->by + "'",
                                   spec->where));
        const auto& locked = lock->kernels.at(spec->id);
        if (is_stale(locked, source_hash)) {
          const Error e = make_error(args.lockfile + ": kernel " + spec->id +
                                         " was tuned on another version of " + args.source +
                                         (args.strict ? "" : "; its locked values are used"),
                                     spec->where);
          if (args.strict) return report(e);
          warn(e);
        }
        std::vector<std::pair<const ParamSet*, std::optional<BucketRange>>> winners;
        if (entry.has_buckets())
          for (const auto& b : entry.buckets) winners.emplace_back(&b.params, b.range);
        else
          winners.emplace_back(&entry.params, std::nullopt);
        for (const auto& [winner, range] : winners) {
          const std::string what = args.lockfile + ": " + spec->id + " " + choice.arch +
                                   (range ? " " + bucket_label(entry.by, *range) : "");
          auto checked = check_params(*winner, *spec, what);
          if (!checked) return report(checked.error());
          ParamSet params = *defaults;
          for (const auto& [k, v] : *winner) params[k] = v;
          if (auto st = check_constraints(params, *spec, what); !st) return report(st.error());
          builds.emplace_back(std::move(params), range);
        }
      }
      std::vector<std::pair<ParamSet, TritonBuiltImage>> compiled;  // one compile per winner
      for (const auto& [params, range] : builds) {
        const auto same = std::find_if(compiled.begin(), compiled.end(),
                                       [&](const auto& c) { return c.first == params; });
        TritonBuiltImage image;
        if (same != compiled.end()) {
          image = same->second;
        } else {
          const CompileOutput out = cuda::compile_triton(*spec, params, arch);
          if (!out.ok)
            return report(make_error(spec->source + ": kernel " + spec->id + " (" + arch +
                                         "): the Triton compile failed:\n" + out.log,
                                     spec->where));
          for (const auto& d : out.dependencies) deps.push_back(d);
          image.arch = arch;
          image.image = out.image;
          image.function = out.lowered_names.at(spec->kernel);
          image.block_threads = out.launch.block_threads.value_or(128);
          image.shared_bytes = out.launch.shared_bytes.value_or(0);
          image.trailing_null_pointers = out.launch.trailing_null_pointers;
          image.cluster_ctas = out.launch.cluster_ctas;
          image.params = params;
          compiled.emplace_back(params, image);
        }
        image.range = range;
        images.push_back(std::move(image));
      }
    }
    auto part = generate_triton_launcher(*spec, images);
    if (!part) return report(part.error());
    parts.push_back(std::move(part).value());
  }
  const std::string stem = fs::path(args.source).stem().string();
  const std::string header_name = stem + "_triton.h";
  const fs::path dir(args.out_dir);
  for (const auto& [name, content] :
       {std::pair{header_name, triton_launcher_header(args.source, parts)},
        std::pair{stem + "_triton.cpp", triton_launcher_source(args.source, header_name, parts)}}) {
    if (auto w = write_if_changed((dir / name).string(), content); !w) return report(w.error());
  }
  if (!args.depfile.empty()) {
    std::string d = escape_make(args.depfile_target.empty() ? (dir / header_name).string()
                                                            : args.depfile_target) +
                    ":";
    std::error_code ec;
    // The lockfile, else the directory it would appear in (creating it changes the
    // directory), so a lockfile written later reaches the build.
    if (fs::exists(args.lockfile, ec))
      deps.push_back(fs::absolute(args.lockfile).string());
    else if (const auto lock_dir = fs::absolute(args.lockfile).parent_path();
             fs::is_directory(lock_dir, ec))
      deps.push_back(lock_dir.string());
    for (const auto& p : deps) d += " \\\n  " + escape_make(p);
    if (auto w = write_if_changed(args.depfile, d + "\n"); !w) return report(w.error());
  }
  return 0;
}

CommandRegistrar reg{
    "triton-build", [](CLI::App& app, int& exit_code) {
      static TritonBuildArgs args;
      auto* sub = app.add_subcommand(
          "triton-build",
          "Compile the locked Triton kernels of a .py source into C++ with a launcher (internal)");
      sub->group("");  // hidden from --help: cmake/KernelEvo.cmake runs it
      sub->add_option("--source", args.source, "The marked .py source")->required();
      sub->add_option("--out-dir", args.out_dir, "Where <stem>_triton.h and .cpp go")->required();
      sub->add_option("--lockfile", args.lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option("--archs", args.archs, "CMAKE_CUDA_ARCHITECTURES of the build (\"80;90\")");
      sub->add_option("--device", args.device, "The device whose entries the build uses");
      sub->add_flag("--strict", args.strict, "An entry tuned on another source version fails");
      sub->add_option("--depfile", args.depfile, "Also write a dependency file");
      sub->add_option("--depfile-target", args.depfile_target, "The target it names");
      sub->callback([&exit_code] { exit_code = run_triton_build(args); });
    }};

}  // namespace
}  // namespace kev::cli
