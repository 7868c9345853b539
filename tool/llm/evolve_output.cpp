#include "llm/evolve_output.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/lockfile.h"
#include "core/time_text.h"
#include "core/unified_diff.h"
#include "core/wall_time.h"
#include "io/atomic_file.h"
#include "io/hash.h"
#include "io/lockfile_json.h"

namespace kev::llm {

namespace {

std::string safe_file_stem(const std::string& id) {
  std::string out;
  for (const char c : id)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out.empty() ? "kernel" : out;
}

nlohmann::json outcome_json(const Outcome& o) {
  nlohmann::json j = {{"disposition", to_string(o.disposition)}};
  if (o.time_us) j["time_us"] = *o.time_us;
  if (o.ci_low_us) j["ci_low_us"] = *o.ci_low_us;
  if (o.ci_high_us) j["ci_high_us"] = *o.ci_high_us;
  return j;
}

nlohmann::json params_json(const ParamSet& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : params) {
    if (value.is_int())
      j[name] = *value.as_int();
    else if (value.is_double())
      j[name] = value.as_double();
    else
      j[name] = value.as_string();
  }
  return j;
}

}  // namespace

Result<VariantFiles> write_variant(const std::filesystem::path& lockfile,
                                   const std::string& kernel_id, const std::string& original_path,
                                   const std::string& original_text,
                                   const std::string& variant_text) {
  VariantFiles files;
  std::string ext = std::filesystem::path(original_path).extension().string();
  if (ext.empty()) ext = ".cu";
  files.relative_source = "kernelevo-variants/" + safe_file_stem(kernel_id) + ext;
  const auto folder =
      lockfile.has_parent_path() ? lockfile.parent_path() : std::filesystem::path(".");
  files.source_path = folder / files.relative_source;
  files.diff_path = files.source_path;
  files.diff_path += ".diff";
  std::error_code ec;
  std::filesystem::create_directories(files.source_path.parent_path(), ec);
  if (ec)
    return make_error(
        "cannot create " + files.source_path.parent_path().string() + ": " + ec.message(), {},
        ExitCode::failure);
  if (auto s = write_file_atomically(files.source_path, variant_text); !s) return s.error();
  std::string label = original_path;
  while (label.rfind("./", 0) == 0) label.erase(0, 2);
  const std::string diff = unified_diff(original_text, variant_text, "a/" + label, "b/" + label);
  if (auto s = write_file_atomically(files.diff_path, diff); !s) return s.error();
  files.sha256 = sha256_of(variant_text);
  return files;
}

Status record_variant(const std::filesystem::path& lockfile, const VariantLockEntry& entry,
                      const VariantFiles& files) {
  const Outcome& o = entry.measurement.outcome;
  if (!o.passed() || !o.time_us)
    return make_error("only a verified variant is recorded in the lockfile", {}, ExitCode::failure);
  LockEntry lock_entry;
  lock_entry.params = entry.measurement.params;
  lock_entry.time_us = *o.time_us;
  lock_entry.baseline_us = entry.baseline_us;
  lock_entry.tuned_with = std::string("kernelevo ") + KERNELEVO_VERSION + ", evolve " +
                          entry.label + ", variant " + files.sha256 + l2_provenance(entry.timing);
  lock_entry.timing = entry.timing;
  lock_entry.flush = kFlushRevision;  // measured by this kernelevo's GPU runner
  const std::string source_hash = sha256_of(entry.source_text);
  return update_lockfile(lockfile, [&](Lockfile& lock) -> Status {
    set_entry(lock, entry.kernel_id, entry.source, source_hash, entry.arch, entry.device,
              lock_entry);
    lock.kernels[entry.kernel_id].variant =
        LockedVariant{files.relative_source, files.sha256, source_hash};
    return ok_status();
  });
}

std::string evolve_summary_text(const EvolveTarget& target, const EvolveResult& result) {
  const auto& s = result.summary;
  const auto us = [](double v) { return format_time_us(v); };
  const auto& base = result.baseline.outcome.time_us;
  std::string out = target.kernel_id + ": baseline " + (base ? us(*base) : "-") + "; ";
  if (result.winner) {
    const auto& w = result.candidates[*result.winner];
    const double time = *w.measurement.outcome.time_us;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", base ? *base / time : 0.0);
    out += "winner " + w.label + " " + us(time) + " (" + ratio + ")\n";
  } else {
    out += "no variant beat the original\n";
  }
  out += "  generations " + std::to_string(s.generations_run) + ", candidates " +
         std::to_string(result.candidates.size()) + ", requests " + std::to_string(s.requests) +
         ", tokens " + std::to_string(s.tokens.total()) + " (" +
         std::to_string(s.tokens.prompt_tokens) + " prompt, " +
         std::to_string(s.tokens.completion_tokens) + " completion), " +
         format_wall_time(s.seconds) + ", stopped by " + s.stop_reason + "\n";
  out += "  candidates:";
  for (const auto& [status, n] : s.counts) out += " " + status + " " + std::to_string(n);
  return out + "\n";
}

std::string evolve_report_json(const EvolveTarget& target, const EvolveResult& result,
                               const VariantFiles* winner_files) {
  const auto& s = result.summary;
  nlohmann::json j;
  j["format"] = "kernelevo-evolve-report";
  j["version"] = 1;
  j["kernel"] = target.kernel_id;
  j["source"] = target.names.file;
  j["device"] = {{"name", target.device.name}, {"arch", target.device.arch}};
  j["baseline"] = outcome_json(result.baseline.outcome);
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : result.candidates) {
    nlohmann::json cj = {{"label", c.label},
                         {"generation", c.generation},
                         {"parent", c.parent_label},
                         {"status", c.status()},
                         {"prompt_tokens", c.usage.prompt_tokens},
                         {"completion_tokens", c.usage.completion_tokens}};
    if (!c.kind.empty()) cj["kind"] = c.kind;
    if (!c.reason.empty()) cj["reason"] = c.reason;
    if (c.fate == CandidateFate::evaluated) {
      cj["outcome"] = outcome_json(c.measurement.outcome);
      cj["params"] = params_json(c.measurement.params);
    }
    candidates.push_back(std::move(cj));
  }
  j["candidates"] = std::move(candidates);
  if (result.winner) {
    const auto& w = result.candidates[*result.winner];
    nlohmann::json wj = {{"label", w.label},
                         {"outcome", outcome_json(w.measurement.outcome)},
                         {"params", params_json(w.measurement.params)}};
    if (w.measurement.outcome.time_us && result.baseline.outcome.time_us)
      wj["speedup"] = *result.baseline.outcome.time_us / *w.measurement.outcome.time_us;
    if (winner_files) {
      wj["variant"] = winner_files->relative_source;
      wj["variant_hash"] = winner_files->sha256;
      wj["diff"] = winner_files->relative_source + ".diff";
    }
    j["winner"] = std::move(wj);
  } else {
    j["winner"] = nullptr;
  }
  j["summary"] = {{"generations", s.generations_run},
                  {"requests", s.requests},
                  {"prompt_tokens", s.tokens.prompt_tokens},
                  {"completion_tokens", s.tokens.completion_tokens},
                  {"total_tokens", s.tokens.total()},
                  {"seconds", s.seconds},
                  {"candidates", result.candidates.size()},
                  {"counts", s.counts},
                  {"stop_reason", s.stop_reason}};
  return j.dump(2) + "\n";
}

}  // namespace kev::llm
