// `kernelevo tune PATH...` on a GPU: load the marked kernels, select them (--kernel,
// --shard), wire the tune run (core/tune_run.h) to the GPU, the files and stderr, print the
// table.
#include "cli/tune_spec.h"

#include <algorithm>

#include "cli/command.h"
#include "cli/kernel_selection.h"
#include "cli/timeout_option.h"
#include "cli/tune_table.h"
#include "cli/tune_wiring.h"
#include "core/l2_choice.h"
#include "core/shard.h"
#include "core/tune_run.h"
#include "cuda/gpu_backend.h"
#include "io/console.h"
#include "io/spec_loader.h"

namespace kev::cli {

namespace {

// The specs of `selected` in `shard`, sorted by id.
std::vector<const KernelSpec*> shard_of(const std::vector<const KernelSpec*>& selected,
                                        const Shard& shard) {
  std::vector<std::string> ids;
  for (const auto* s : selected) ids.push_back(s->id);
  std::vector<const KernelSpec*> mine;
  for (const auto& id : shard_ids(std::move(ids), shard))
    for (const auto* s : selected)
      if (s->id == id) mine.push_back(s);
  return mine;
}

}  // namespace

int tune_specs(const TuneOptions& options, std::vector<RunChange>* changes) {
  if (!cuda::have_gpu())
    return report(make_error("this kernelevo was built without CUDA: tune needs --replay FILE", {},
                             ExitCode::environment));
  auto budget = tune_budget(options);
  if (!budget) return report(budget.error());
  auto timeout = evaluation_timeout(options.timeout);
  if (!timeout) return report(timeout.error());
  KernelSelection kernels = select_kernels(options.paths, options.kernel);
  if (kernels.exit_code != 0) return kernels.exit_code;
  std::vector<const KernelSpec*>& selected = kernels.selected;
  if (!options.shard.empty()) {
    auto shard = parse_shard(options.shard);
    if (!shard) return report(shard.error());
    auto mine = shard_of(selected, *shard);
    std::string ids;
    for (const auto* s : mine) ids += (ids.empty() ? "" : ", ") + s->id;
    io::Console::standard_error().print(
        "kernelevo: shard " + options.shard + ": " + std::to_string(mine.size()) + " of " +
        std::to_string(selected.size()) + " kernels" + (ids.empty() ? "" : ": " + ids));
    if (mine.empty()) return 0;  // more shards than kernels: nothing to tune here
    selected = std::move(mine);
  }
  // Triton kernels need an interpreter with triton: said before any GPU is touched.
  if (std::any_of(selected.begin(), selected.end(),
                  [](const KernelSpec* s) { return s->language == SourceLanguage::triton; })) {
    if (auto why = cuda::triton_unavailable())
      return report(make_error(*why, {}, ExitCode::environment));
  }
  const auto backend = cuda::make_tune_backend();
  if (auto applied = apply_build_settings(options.compile_settings, *backend, kernels.load.specs,
                                          selected, device_code_of(options));
      !applied)
    return report(applied.error());
  const auto console = make_tune_console();
  auto wanted = tune_devices(options);
  if (!wanted) return report(wanted.error());
  auto gpus = open_devices(*backend, *wanted, *console);
  if (!gpus) return report(gpus.error());

  TuneRunOptions run;
  run.strategy = options.strategy;
  run.seed = options.seed;
  run.budget = *budget;
  run.memcheck = options.memcheck;
  run.l2 = l2_choice(options.l2);
  run.timeout_seconds = *timeout;
  run.device_code = device_code_of(options);
  run.gpus_named = !options.gpus.empty();
  const auto store = make_tune_store(options, selected.size());
  auto rows = tune_kernels(selected, *gpus, *backend, *store, *console, run);
  if (!rows) return report(rows.error());

  int rc = 0;
  for (const auto& row : *rows) {
    if (row.exit_code != 0) rc = row.exit_code;
    if (changes != nullptr && row.change) changes->push_back(*row.change);
  }
  if (options.format == "json")
    print_tune_json(*gpus, options, *rows, store->lockfile_path());
  else
    print_tune_text(*gpus, *rows, store->lockfile_path());
  return rc;
}

}  // namespace kev::cli
