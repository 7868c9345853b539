#pragma once
// What `kernelevo tune` prints on stdout for real kernels: the devices and one row per
// kernel, as a table or as JSON (--format json).
#include <string>
#include <vector>

#include "cli/tune_options.h"
#include "core/tune_run.h"

namespace kev::cli {

// "locked in kernelevo.lock", "already locked", "kept the locked winner (...)", ...
[[nodiscard]] std::string lock_text(const KernelRow& row, const std::string& lockfile);

void print_tune_text(const std::vector<TuneDevice>& gpus, const std::vector<KernelRow>& rows,
                     const std::string& lockfile);
void print_tune_json(const std::vector<TuneDevice>& gpus, const TuneOptions& options,
                     const std::vector<KernelRow>& rows, const std::string& lockfile);

}  // namespace kev::cli
