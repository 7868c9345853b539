// `kernelevo merge OUT IN...`: merges lockfiles (from tuning shards or runners) into OUT,
// which is created when absent and otherwise merged into as well. Inputs are applied in
// order, each as the newer side; conflicts are resolved by kev::merge's rule and reported.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli/command.h"
#include "io/hash.h"
#include "io/lockfile_json.h"

namespace {

struct MergeArgs {
  std::string output;
  std::vector<std::string> inputs;
  bool fail_on_conflict = false;
};

std::size_t count_entries(const kev::Lockfile& lock) {
  std::size_t n = 0;
  for (const auto& [id, kernel] : lock.kernels)
    for (const auto& [arch, devices] : kernel.targets) n += devices.size();
  return n;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

int run_merge(const MergeArgs& args) {
  std::vector<kev::Lockfile> inputs;
  for (const std::string& path : args.inputs) {
    auto lock = kev::read_lockfile(path);
    if (!lock) return kev::cli::report(lock.error());
    inputs.push_back(std::move(*lock));
  }

  // Sources are relative to the project root, where OUT lives.
  const std::filesystem::path root = std::filesystem::path(args.output).parent_path();
  std::map<std::string, std::optional<std::string>> hashes;
  kev::MergeOptions options;
  options.current_source_hash = [&](const std::string& source) -> std::optional<std::string> {
    auto [it, inserted] = hashes.try_emplace(source);
    if (inserted) {
      const auto path = root / source;
      if (std::filesystem::is_regular_file(path))
        if (auto h = kev::sha256_of_file(path)) it->second = *h;
    }
    return it->second;
  };

  std::vector<kev::MergeConflict> conflicts;
  kev::Lockfile merged;
  const kev::Status written =
      kev::update_lockfile(args.output, [&](kev::Lockfile& lock) -> kev::Status {
        conflicts.clear();
        for (const kev::Lockfile& in : inputs) {
          kev::MergeResult r = kev::merge(lock, in, options);
          lock = std::move(r.merged);
          conflicts.insert(conflicts.end(), r.conflicts.begin(), r.conflicts.end());
        }
        merged = lock;
        if (args.fail_on_conflict && !conflicts.empty())
          return kev::make_error(plural(conflicts.size(), "conflict", "conflicts") + "; " +
                                     args.output + " left unchanged (--fail-on-conflict)",
                                 {}, kev::ExitCode::failure);
        return kev::ok_status();
      });

  for (const kev::MergeConflict& c : conflicts) {
    std::string slot = c.kernel_id;
    if (!c.arch.empty()) slot += " " + c.arch + " " + c.device;
    std::cout << "conflict: " << slot << ": " << c.resolution << '\n';
  }
  if (!written) return kev::cli::report(written.error());
  std::cout << "merged " << plural(args.inputs.size(), "file", "files") << " into " << args.output
            << ": " << plural(merged.kernels.size(), "kernel", "kernels") << ", "
            << plural(count_entries(merged), "entry", "entries") << ", "
            << plural(conflicts.size(), "conflict", "conflicts") << " resolved\n";
  return 0;
}

kev::cli::CommandRegistrar reg{
    "merge", [](CLI::App& app, int& exit_code) {
      auto args = std::make_shared<MergeArgs>();
      auto* sub = app.add_subcommand("merge",
                                     "Merge lockfiles into OUT (created if absent). For the same "
                                     "kernel, architecture and device "
                                     "the faster entry wins; for a changed source, the side "
                                     "matching the current source (else the "
                                     "later file) wins");
      sub->add_option("OUT", args->output, "Lockfile to write (its entries are kept and merged)")
          ->required();
      sub->add_option("IN", args->inputs, "Lockfiles to merge in, oldest first")->required();
      sub->add_flag("--fail-on-conflict", args->fail_on_conflict,
                    "Exit 1 and write nothing when any entry conflicts");
      sub->callback([&exit_code, args] { exit_code = run_merge(*args); });
    }};

}  // namespace
