// `kernelevo evolve [PATH...]`: grows source variants of marked kernels with a language
// model (any OpenAI-compatible endpoint), keeping only variants that compile, verify and
// measure faster. `--dry-run` prints the prompts it would send and sends nothing.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/kernel_selection.h"
#include "core/evolve.h"
#include "core/kernel_regions.h"
#include "core/l2_choice.h"
#include "core/tuner.h"
#include "cuda/evolve_gpu.h"
#include "io/atomic_file.h"
#include "io/file_read.h"
#include "io/llm_settings.h"
#include "io/lockfile_json.h"
#include "io/spec_loader.h"
#include "llm/chat_client.h"
#include "llm/evolve_output.h"
#include "llm/prompts.h"

namespace kev::cli {
namespace {

struct EvolveArgs {
  std::vector<std::string> paths;
  std::string kernel;
  int generations = 3;
  int candidates = 4;
  std::int64_t token_budget = 0;
  std::string time;
  bool dry_run = false;
  std::string lockfile;
  std::string report;
  LlmSettings llm;  // the endpoint flags given on the command line
  std::uint64_t seed = 1;
  std::uint64_t variant_evaluations = 12;
  int device = 0;
  std::string l2 = "clean";  // as tune's --l2
};

std::string read_text(const std::string& path) {
  auto text = read_regular_file(path, kMaxSourceBytes);
  return text ? std::move(*text) : std::string();
}

// What the model is shown as the spec: the @kernelevo block itself when the source has one,
// else the essentials of a kernelevo.yaml spec.
std::string spec_text(const KernelSpec& spec, const std::string& source) {
  const KernelNames names{spec.source, spec.kernel, spec.reference};
  if (auto regions = locate_kernel_regions(source, names); regions && regions->spec_block) {
    const std::string block = source.substr(regions->spec_block->begin,
                                            regions->spec_block->end - regions->spec_block->begin);
    const auto start = block.find('\n', block.find("@kernelevo"));
    const auto end = block.rfind("*/");
    if (start != std::string::npos && end != std::string::npos && end > start)
      return block.substr(start + 1, end - start - 1);
    return block;
  }
  std::string s = "id: " + spec.id + "\nkernel: " + spec.kernel + "\nparams:\n";
  for (const auto& p : spec.params) {
    s += "  " + p.name + ": [";
    for (std::size_t i = 0; i < p.values.size(); ++i)
      s += (i ? ", " : "") + p.values[i].to_string();
    s += "]\n";
  }
  s += "problems:\n";
  for (const auto& p : spec.problems) s += "  - " + p.to_string() + "\n";
  s += "reference: " + spec.reference + "\n";
  return s;
}

Result<EvolveTarget> make_target(const KernelSpec& spec) {
  EvolveTarget target;
  target.kernel_id = spec.id;
  target.names = {spec.source, spec.kernel, spec.reference};
  target.source = read_text(spec.source);
  if (target.source.empty())
    return make_error("cannot read the kernel's source", SourceLocation{spec.source, 0, 0});
  target.spec_text = spec_text(spec, target.source);
  if (auto regions = locate_kernel_regions(target.source, target.names); !regions)
    return regions.error();
  return target;
}

int dry_run(const std::vector<const KernelSpec*>& specs, const EvolveOptions& options) {
  llm::ChatPrompts prompts;
  for (const auto* spec : specs) {
    auto target = make_target(*spec);
    if (!target) return report(target.error());
    const auto list = first_generation_prompts(*target, prompts, options);
    const char* stage[] = {"ideas", "implementation"};
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::cout << "=== " << spec->id << ": generation 1, " << stage[i] << " prompt: system ===\n"
                << list[i].system << "\n=== " << spec->id << ": generation 1, " << stage[i]
                << " prompt: user ===\n"
                << list[i].user << '\n';
    }
  }
  std::cerr << "kernelevo: dry run: nothing was sent\n";
  return 0;
}

std::string project_relative(const std::string& source, const std::filesystem::path& lockfile) {
  std::error_code ec;
  const auto root = std::filesystem::absolute(lockfile, ec).parent_path();
  auto rel = std::filesystem::relative(std::filesystem::absolute(source, ec), root, ec);
  if (ec || rel.empty()) return source;
  return rel.generic_string();
}

// The project's kernelevo.yaml: the one in the lockfile's directory.
std::filesystem::path project_file_beside(const std::filesystem::path& lockfile) {
  return lockfile.has_parent_path() ? lockfile.parent_path() / "kernelevo.yaml"
                                    : std::filesystem::path("kernelevo.yaml");
}

int run_evolve(const EvolveArgs& args) {
  EvolveOptions options;
  options.budget.generations = args.generations;
  options.budget.candidates = args.candidates;
  options.budget.token_budget = args.token_budget;
  options.seed = args.seed;
  if (!args.time.empty()) {
    auto wall = parse_duration(args.time);
    if (!wall) return report(wall.error());
    options.budget.wall_seconds = wall->count();
  }
  options.progress = [](const std::string& line) { std::cerr << "kernelevo: " << line << '\n'; };

  const KernelSelection kernels =
      select_kernels(args.paths.empty() ? std::vector<std::string>{"."} : args.paths, args.kernel);
  if (kernels.exit_code != 0) return kernels.exit_code;
  const std::vector<const KernelSpec*>& selected = kernels.selected;
  for (const KernelSpec* s : selected)
    if (s->language == SourceLanguage::triton)
      return report(make_error("evolve rewrites CUDA sources only; kernel " + s->id +
                                   " is a Triton kernel (tune it instead)",
                               s->where));
  const std::filesystem::path lockfile = args.lockfile.empty() ? kLockfileName : args.lockfile;
  // Read (and checked for a key written in it) even by a dry run.
  auto project_settings = read_llm_settings(project_file_beside(lockfile));
  if (!project_settings) return report(project_settings.error());
  if (args.dry_run) return dry_run(selected, options);

  // The key leaves the environment before any compiler or worker process starts.
  llm::Secret key = llm::take_api_key_from_environment();
  const llm::ChatConfig config = llm::resolve_chat_config(*project_settings, args.llm);
  auto client = llm::ChatClient::create(config, std::move(key));
  if (!client) return report(client.error());

  cuda::EvolveGpuOptions gpu_options;
  gpu_options.device = args.device;
  gpu_options.seed = args.seed;
  gpu_options.variant_evaluations = args.variant_evaluations;
  gpu_options.l2 = l2_choice(args.l2);
  auto gpu = cuda::open_evolve_gpu(gpu_options);
  if (!gpu) return report(gpu.error());
  std::cerr << "kernelevo: evolving with " << config.model << " at " << (*client)->endpoint()
            << '\n';

  llm::ChatPrompts prompts;
  int rc = 0;
  for (const auto* spec : selected) {
    auto target = make_target(*spec);
    if (!target) {
      rc = report(target.error());
      continue;
    }
    target->device = (*gpu)->facts();
    cuda::EvolveSetup setup = (*gpu)->setup_for(*spec);
    target->includes = setup.includes.get();
    auto result = evolve(*target, **client, prompts, *setup.evaluator, options);
    if (!result) {
      rc = report(result.error());
      if (result.error().code == ExitCode::environment) return rc;
      continue;
    }
    std::optional<llm::VariantFiles> files;
    if (result->winner) {
      const auto& w = result->candidates[*result->winner];
      const std::string source = project_relative(spec->source, lockfile);
      auto written = llm::write_variant(lockfile, spec->id, source, target->source, w.source);
      if (!written) return report(written.error());
      files = *written;
      const llm::VariantLockEntry entry{spec->id,
                                        source,
                                        target->source,
                                        target->device.arch,
                                        target->device.name,
                                        w.measurement,
                                        *result->baseline.outcome.time_us,
                                        w.label,
                                        lock_timing(gpu_options.l2)};
      if (auto st = llm::record_variant(lockfile, entry, *files); !st) return report(st.error());
      std::cerr << "kernelevo: " << spec->id << ": wrote " << files->source_path.string()
                << " and its .diff; " << lockfile.string() << " records " << files->sha256 << '\n';
    }
    std::cout << llm::evolve_summary_text(*target, *result);
    if (!args.report.empty()) {
      std::string path = args.report;
      if (selected.size() > 1) path += "." + spec->id + ".json";
      const std::string json = llm::evolve_report_json(*target, *result, files ? &*files : nullptr);
      if (auto st = write_file_atomically(path, json); !st) return report(st.error());
    }
  }
  return rc;
}

CommandRegistrar reg{
    "evolve", [](CLI::App& app, int& exit_code) {
      static EvolveArgs args;
      auto* sub = app.add_subcommand(
          "evolve",
          "Grow faster source variants of marked kernels with an LLM (OpenAI-compatible)");
      sub->add_option("paths", args.paths, "Marked .cu files or directories (default: .)");
      sub->add_option("--kernel", args.kernel, "Only the kernel with this id");
      sub->add_option("--generations", args.generations, "Generations (default 3)")
          ->check(CLI::PositiveNumber);
      sub->add_option("--candidates", args.candidates,
                      "Implementations asked per generation (default 4)")
          ->check(CLI::PositiveNumber);
      sub->add_option("--token-budget", args.token_budget,
                      "Stop once this many tokens were used (0: no limit)")
          ->check(CLI::NonNegativeNumber);
      sub->add_option("--time", args.time, "Wall-time budget: 90s, 20m, 1h");
      sub->add_flag("--dry-run", args.dry_run, "Print the prompts it would send; send nothing");
      sub->add_option("--lockfile", args.lockfile, "Lockfile (default kernelevo.lock.json)");
      sub->add_option("--report", args.report, "Write the run's JSON report to this file");
      // Given flags override $KERNELEVO_LLM_URL / $KERNELEVO_LLM_MODEL, which override
      // kernelevo.yaml's `llm:` section, which overrides the defaults.
      static std::string url;
      static std::string model;
      static double request_timeout_s = 0.0;
      static int max_tokens = 0;
      static double temperature = 0.0;
      auto* url_opt = sub->add_option(
          "--url", url, "Endpoint base URL (default: $KERNELEVO_LLM_URL, else llm.base_url)");
      auto* model_opt = sub->add_option(
          "--model", model, "Model name (default: $KERNELEVO_LLM_MODEL, else llm.model)");
      auto* timeout_opt =
          sub->add_option("--request-timeout", request_timeout_s,
                          "Seconds to wait for one answer (default: llm.request_timeout, "
                          "else 300)")
              ->check(CLI::PositiveNumber);
      auto* max_tokens_opt = sub->add_option("--max-tokens", max_tokens,
                                             "Completion tokens per answer at most (default: "
                                             "llm.max_tokens, else not sent)")
                                 ->check(CLI::PositiveNumber);
      auto* temperature_opt =
          sub->add_option("--temperature", temperature,
                          "Sampling temperature (default: llm.temperature, else 0.7)")
              ->check(CLI::Range(0.0, 2.0));
      sub->add_option("--seed", args.seed, "Seed of parent selection and parameter searches");
      sub->add_option("--variant-budget", args.variant_evaluations,
                      "Parameter points measured per variant (default 12)")
          ->check(CLI::PositiveNumber);
      sub->add_option("--device", args.device, "GPU index (default 0)");
      sub->add_option("--l2", args.l2,
                      "The L2 every timed run of the baseline and the variants starts from, as "
                      "tune's --l2: clean, dirty or clean+write-back (each run charged the "
                      "write-back of the lines it leaves dirty, so a variant that keeps its "
                      "output in the L2 pays for it); the lockfile entry records it")
          ->check(CLI::IsMember(l2_choice_names()))
          ->capture_default_str();
      sub->callback([&exit_code, url_opt, model_opt, timeout_opt, max_tokens_opt, temperature_opt] {
        if (url_opt->count() > 0) args.llm.base_url = url;
        if (model_opt->count() > 0) args.llm.model = model;
        if (timeout_opt->count() > 0) args.llm.request_timeout_s = request_timeout_s;
        if (max_tokens_opt->count() > 0) args.llm.max_tokens = max_tokens;
        if (temperature_opt->count() > 0) args.llm.temperature = temperature;
        exit_code = run_evolve(args);
      });
    }};

}  // namespace
}  // namespace kev::cli
