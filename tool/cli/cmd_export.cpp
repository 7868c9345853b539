// `kernelevo export --torch KERNEL [PATH...] [--lockfile F] [--out DIR] [--package NAME]
// [--archs LIST] [--device NAME] [--torch-equivalent FILE] [--compile-settings LINES]`:
// writes DIR/NAME/, a Python package that registers the kernel's locked winners as the
// PyTorch operator torch.ops.kernelevo.KERNEL (docs/torch-export.md). The cubins are compiled
// here, for every architecture the lockfile holds for the kernel (or those --archs names),
// with the compiler and settings tune used, and shipped in the package, so importing it
// needs no compiler and runs the binary that was verified.
//
// An architecture --archs names that has no entry gets the source defaults (a warning);
// with no --archs, a kernel without any lockfile entry is an error: an export of untuned
// defaults must be asked for.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/gate_common.h"
#include "cli/kernel_selection.h"
#include "core/lockfile.h"
#include "core/source_defaults.h"
#include "core/torch_signature.h"
#include "cuda/gpu_backend.h"
#include "io/file_read.h"
#include "io/hash.h"
#include "io/header_gen.h"
#include "io/lockfile_json.h"
#include "io/torch_package.h"

namespace {

namespace fs = std::filesystem;

struct ExportArgs {
  std::string torch_kernel;
  std::vector<std::string> paths;
  std::string lockfile = kev::kLockfileName;
  std::string out = ".";
  std::string package;
  std::string archs;
  std::string device;
  std::string equivalent;
  std::string compile_settings;
};

// "sm_90,sm_80", "90;80a", "sm_90a": sorted, unique.
kev::Result<std::vector<std::string>> parse_archs(const std::string& text) {
  std::string list;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.rfind("sm_", 0) == 0) item = item.substr(3);
    list += item + ";";
  }
  std::string normal;
  for (char c : list) normal += c == ' ' ? ';' : c;
  auto archs = kev::parse_cuda_architectures(normal);
  if (!archs) return archs.error();
  if (archs->empty())
    return kev::make_error("--archs '" + text + "' names no architecture (e.g. sm_90,sm_80)");
  return archs;
}

// The architectures the lockfile holds for `id` whose names are architectures.
std::vector<std::string> locked_archs(const kev::Lockfile* lock, const std::string& id) {
  std::vector<std::string> out;
  if (lock == nullptr) return out;
  const auto k = lock->kernels.find(id);
  if (k == lock->kernels.end()) return out;
  for (const auto& [arch, devices] : k->second.targets) {
    const auto parsed = kev::parse_arch(arch);
    if (parsed && parsed->to_string() == arch && !devices.empty()) out.push_back(arch);
  }
  return out;
}

kev::ParamSet with_defaults(const kev::ParamSet& defaults, const kev::ParamSet& params) {
  kev::ParamSet full = defaults;
  for (const auto& [name, value] : params) full[name] = value;
  return full;
}

kev::Result<kev::TorchImage> compile_image(const kev::KernelSpec& spec, const std::string& text,
                                           const kev::ParamSet& params, const std::string& arch,
                                           bool reference, kev::DeviceCodeCompiler device_code) {
  auto out = kev::cuda::compile_for_export(spec, text, params, arch, reference, device_code);
  if (!out) return out.error();
  const std::string name =
      !reference
          ? spec.kernel
          : (spec.reference.empty() || spec.reference == "default" ? spec.kernel : spec.reference);
  const auto it = out->lowered_names.find(name);
  return kev::TorchImage{out->image, it != out->lowered_names.end() ? it->second : name};
}

int run_export(const ExportArgs& args) {
  using kev::cli::report;
  const std::string package = args.package.empty() ? args.torch_kernel : args.package;
  if (!kev::is_python_identifier(package))
    return report(kev::make_error(
        "the package name '" + package + "' is not a Python identifier" +
        (args.package.empty() ? " (it is the kernel id; pass --package NAME)" : "")));
  std::error_code ec;
  if (fs::exists(args.out, ec) && !fs::is_directory(args.out, ec))
    return report(kev::make_error("--out " + args.out + " is not a directory"));

  std::vector<std::string> paths = args.paths;
  if (paths.empty()) paths.push_back(".");
  kev::cli::KernelSelection selection = kev::cli::select_kernels(paths, args.torch_kernel);
  if (selection.exit_code != 0) return selection.exit_code;
  std::vector<kev::KernelSpec> specs{*selection.selected.front()};
  if (auto applied = kev::cli::apply_gate_settings(args.compile_settings, specs); !applied)
    return report(applied.error());
  const kev::KernelSpec& spec = specs.front();
  if (!kev::is_python_identifier(spec.id))
    return report(kev::make_error("kernel id '" + spec.id +
                                      "' is not a Python identifier, so it cannot name a "
                                      "PyTorch operator",
                                  spec.where));
  auto signature = kev::torch_signature(spec);
  if (!signature) return report(signature.error());

  std::optional<kev::Lockfile> lock;
  if (fs::exists(args.lockfile, ec)) {
    auto read = kev::read_lockfile(args.lockfile);
    if (!read) return report(read.error());
    lock = std::move(*read);
  }
  const kev::Lockfile* lockp = lock ? &*lock : nullptr;

  std::vector<std::string> archs;
  if (!args.archs.empty()) {
    auto parsed = parse_archs(args.archs);
    if (!parsed) return report(parsed.error());
    for (const auto& a : *parsed) archs.push_back(kev::lock_arch(&spec, a));
  } else {
    archs = locked_archs(lockp, spec.id);
    if (archs.empty())
      return report(kev::make_error(
          (lock ? args.lockfile + " has no entry for " + spec.id
                : "no lockfile at " + args.lockfile + ", so no entry for " + spec.id) +
              ": tune it first (kernelevo tune), or name the architectures to export with "
              "--archs sm_90 (an architecture without an entry gets the source defaults)",
          spec.where));
  }
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());

  // The text the build compiles: the evolved variant the lockfile selects, else the source.
  std::vector<const kev::KernelSpec*> one{&spec};
  const auto compiled = kev::cli::compiled_sources(one, lockp, args.lockfile);
  std::string text;
  if (const auto it = compiled.find(spec.source); it != compiled.end()) {
    text = it->second.text;
    std::cerr << "kernelevo: " << spec.id << ": exporting " << it->second.label << "\n";
  } else {
    auto read = kev::read_regular_file(spec.source, kev::kMaxSourceBytes);
    if (!read) return report(read.error());
    text = std::move(*read);
  }
  auto defaults = kev::source_defaults(text, spec);
  if (!defaults) return report(defaults.error());

  kev::TorchPackageOptions options;
  options.package = package;
  options.lockfile_name = args.lockfile;
  options.source_hash = kev::sha256_of(text);
  options.defaults = *defaults;
  if (!args.equivalent.empty()) {
    auto eq = kev::read_regular_file(args.equivalent, kev::kMaxSourceBytes);
    if (!eq) return report(eq.error());
    options.equivalent_text = std::move(*eq);
    options.equivalent_name = fs::path(args.equivalent).filename().string();
  }

  const std::optional<std::string> device =
      args.device.empty() ? std::nullopt : std::optional<std::string>(args.device);
  std::vector<kev::TorchArch> exported;
  std::string summary;
  for (const std::string& arch : archs) {
    kev::TorchArch a;
    a.arch = arch;
    const kev::LockChoice choice =
        lockp ? kev::lookup(*lockp, spec.id, arch, device) : kev::LockChoice{};
    std::vector<std::pair<kev::ParamSet, kev::TorchVariant>> wanted;  // compiled params, variant
    if (choice.entry == nullptr) {
      a.choice = "source defaults (no entry in " + args.lockfile + ")";
      kev::cli::warn(spec.id + ": no entry for " + arch + " in " + args.lockfile +
                     "; exporting its source defaults");
      kev::TorchVariant v;
      v.params = *defaults;
      wanted.emplace_back(kev::ParamSet{}, std::move(v));
    } else {
      const std::string context =
          args.lockfile + ": " + spec.id + " " + choice.arch + " " + choice.device;
      a.choice = args.lockfile + ": " + choice.arch + " " + choice.device + " (" +
                 kev::to_string(choice.match) + ")";
      const kev::LockEntry& e = *choice.entry;
      if (lockp->kernels.count(spec.id) &&
          kev::is_stale(lockp->kernels.at(spec.id), options.source_hash))
        kev::cli::warn(context + " was tuned on another version of " + spec.source);
      auto add = [&](const kev::ParamSet& params, std::optional<kev::BucketRange> bucket,
                     bool sized, std::optional<double> time,
                     std::optional<double> base) -> kev::Status {
        auto checked = kev::check_params(params, spec, context);
        if (!checked) return checked.error();
        kev::TorchVariant v;
        v.params = with_defaults(*defaults, params);
        if (auto st = kev::check_constraints(v.params, spec, context); !st) return st.error();
        v.bucket = bucket;
        if (bucket) v.size_define = kev::bucket_compile_define(spec, e.by, *bucket, sized);
        v.time_us = time;
        v.baseline_us = base;
        wanted.emplace_back(params, std::move(v));
        return kev::ok_status();
      };
      if (e.has_buckets()) {
        a.by = e.by;
        for (const auto& b : e.buckets)
          if (auto s = add(b.params, b.range, b.sized, b.time_us, b.baseline_us); !s)
            return report(s.error());
      } else if (auto s = add(e.params, std::nullopt, true, e.time_us, e.baseline_us); !s) {
        return report(s.error());
      }
    }
    // The cubins come from the compiler whose code the entry's times are of.
    const kev::DeviceCodeCompiler code = choice.entry != nullptr
                                             ? kev::device_code_of(*choice.entry)
                                             : kev::DeviceCodeCompiler::nvcc;
    for (auto& [params, v] : wanted) {
      // A one-size bucket's winner is compiled as the build compiles it (bucket_compile_define).
      const kev::KernelSpec bucket_compiled =
          v.bucket ? kev::spec_for_bucket(spec, a.by, *v.bucket, v.size_define.has_value()) : spec;
      auto image = compile_image(bucket_compiled, text, params, arch, false, code);
      if (!image) return report(image.error());
      v.image = std::move(*image);
      a.variants.push_back(std::move(v));
    }
    auto reference = compile_image(spec, text, {}, arch, true, code);
    if (!reference) return report(reference.error());
    a.reference = std::move(*reference);
    summary += (summary.empty() ? "" : ", ") + arch + " (" + a.choice + ")";
    exported.push_back(std::move(a));
  }

  auto files = kev::torch_package_files(spec, *signature, exported, options);
  if (!files) return report(files.error());
  fs::create_directories(args.out, ec);
  if (ec) return report(kev::make_error("cannot create --out " + args.out + ": " + ec.message()));
  const fs::path dir = fs::path(args.out) / package;
  if (auto written = kev::write_torch_package(dir, *files); !written)
    return report(written.error());
  std::cout << dir.string() << ": " << spec.id << " for " << summary << "\n";
  return 0;
}

kev::cli::CommandRegistrar reg{
    "export", [](CLI::App& app, int& exit_code) {
      auto args = std::make_shared<ExportArgs>();
      auto* sub = app.add_subcommand(
          "export", "Write a kernel's locked winners as a package for another framework");
      sub->add_option("--torch", args->torch_kernel,
                      "Write a Python package registering KERNEL (a spec id) as a PyTorch "
                      "custom operator")
          ->required();
      sub->add_option("paths", args->paths,
                      "Sources or directories with marked kernels (default: .)");
      sub->add_option("--lockfile", args->lockfile, "Lockfile (default: kernelevo.lock.json)");
      sub->add_option("--out", args->out,
                      "Directory to write the package under (default: .; created if missing)");
      sub->add_option("--package", args->package, "The package's name (default: the kernel id)");
      sub->add_option("--archs", args->archs,
                      "Architectures to export (sm_90,sm_80; default: those the lockfile "
                      "holds for the kernel; one without an entry gets the source defaults)");
      sub->add_option("--device", args->device,
                      "Use this device's entries where an architecture has several");
      sub->add_option("--torch-equivalent", args->equivalent,
                      "A Python file defining torch_equivalent(kernel_id, args, dims), copied "
                      "into the package for its benchmark (bench/templates/entries.py has the "
                      "templates')");
      sub->add_option("--compile-settings", args->compile_settings,
                      "Compile settings as the build writes them (default: "
                      "KERNELEVO_COMPILE_SETTINGS)");
      sub->callback([&exit_code, args] { exit_code = run_export(*args); });
    }};

}  // namespace
