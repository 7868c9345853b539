// `kernelevo show [--lockfile FILE] [--format text|json]`: the lockfile's entries as a table
// (kernel, arch, device, params, time, baseline, speedup, tuned_with) or as JSON rows.
#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/params_text.h"
#include "core/ratio_text.h"
#include "io/lockfile_json.h"

namespace {

struct ShowArgs {
  std::string lockfile = kev::kLockfileName;
  std::string format = "text";
};

std::string optional_time(const std::optional<double>& us) {
  return us ? kev::format_lockfile_us(*us) : "-";
}

// An entry's winners: one, or one per bucket (labelled "cols [0, 2048)").
struct Slot {
  std::string bucket;
  kev::LockEntry entry;  // the bucket's params and times, the entry's other fields
  std::string unsized;   // a bucket locked without its size define: the macro's name
};
std::vector<Slot> slots(const kev::LockEntry& e) {
  if (!e.has_buckets()) return {{"", e, ""}};
  std::vector<Slot> out;
  for (const auto& b : e.buckets) {
    out.push_back({kev::bucket_label(e.by, b.range), e.bucket_winner(b),
                   b.sized ? "" : kev::kBucketSizeMacroPrefix + e.by});
  }
  return out;
}

std::string entry_speedup(const kev::LockEntry& e) {
  const auto s = e.speedup();
  return s ? kev::speedup_text(*s) : "-";
}

using Row = std::vector<std::string>;

// Columns separated by two spaces; `numeric` columns are right-aligned.
void print_table(const std::vector<Row>& rows, const std::vector<bool>& numeric) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const Row& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], r[c].size());
  for (const Row& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(widths[c] - r[c].size(), ' ');
      line += numeric[c] ? pad + r[c] : r[c] + pad;
      if (c + 1 < r.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << '\n';
  }
}

void print_text(const kev::Lockfile& lock) {
  std::vector<Row> rows{
      {"kernel", "arch", "device", "params", "time_us", "baseline_us", "speedup", "tuned_with"}};
  for (const auto& [id, kernel] : lock.kernels)
    for (const auto& [arch, devices] : kernel.targets)
      for (const auto& [device, entry] : devices)
        for (const auto& [bucket, e, unsized] : slots(entry))
          rows.push_back({bucket.empty() ? id : id + " " + bucket, arch,
                          device + (e.is_default && devices.size() > 1 ? " (default)" : ""),
                          params_text(e.params, " ", "(source defaults)") +
                              (unsized.empty() ? "" : " (without " + unsized + ")"),
                          optional_time(e.time_us), optional_time(e.baseline_us), entry_speedup(e),
                          e.tuned_with.empty() ? "-" : e.tuned_with});
  print_table(rows, {false, false, false, false, true, true, true, false});
}

nlohmann::ordered_json value_json(const kev::Value& v) {
  if (auto i = v.as_int()) return *i;
  if (v.is_double()) return v.as_double();
  return v.as_string();
}

nlohmann::ordered_json optional_json(const std::optional<double>& d) {
  if (!d) return nullptr;
  return *d;
}

void print_json(const kev::Lockfile& lock) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const auto& [id, kernel] : lock.kernels) {
    for (const auto& [arch, devices] : kernel.targets) {
      for (const auto& [device, entry] : devices)
        for (const auto& [bucket, e, unsized] : slots(entry)) {
          nlohmann::ordered_json params = nlohmann::ordered_json::object();
          for (const auto& [name, value] : e.params) params[name] = value_json(value);
          const auto speedup = e.speedup();
          entries.push_back(
              {{"kernel", id},
               {"source", kernel.source},
               {"source_hash", kernel.source_hash},
               {"variant", kernel.variant ? nlohmann::ordered_json(kernel.variant->file) : nullptr},
               {"arch", arch},
               {"device", device},
               {"default", e.is_default},
               {"params", std::move(params)},
               {"time_us", optional_json(e.time_us)},
               {"baseline_us", optional_json(e.baseline_us)},
               {"speedup", speedup ? nlohmann::ordered_json(std::round(*speedup * 1000.0) / 1000.0)
                                   : nlohmann::ordered_json(nullptr)},
               {"tuned_with", e.tuned_with}});
          if (!bucket.empty()) entries.back()["bucket"] = bucket;
          if (!unsized.empty()) entries.back()["sized"] = false;
        }
    }
  }
  const nlohmann::ordered_json out = {{"schema_version", 1}, {"entries", std::move(entries)}};
  std::cout << out.dump(2) << '\n';
}

int run_show(const ShowArgs& args) {
  auto lock = kev::read_lockfile(args.lockfile);
  if (!lock) return kev::cli::report(lock.error());
  if (args.format == "json") {
    print_json(*lock);
  } else if (lock->kernels.empty()) {
    std::cerr << "kernelevo: " << args.lockfile << " has no entries\n";
  } else {
    print_text(*lock);
  }
  return 0;
}

kev::cli::CommandRegistrar reg{
    "show", [](CLI::App& app, int& exit_code) {
      auto args = std::make_shared<ShowArgs>();
      auto* sub = app.add_subcommand("show", "Print the lockfile's tuned entries");
      sub->add_option("--lockfile", args->lockfile, "Lockfile to read")->capture_default_str();
      sub->add_option("--format", args->format, "Output format")
          ->check(CLI::IsMember({"text", "json"}))
          ->capture_default_str();
      sub->callback([&exit_code, args] { exit_code = run_show(*args); });
    }};

}  // namespace
