#pragma once
// What `kernelevo tune` wires the tune run (core/tune_run.h) to besides the GPU: the
// lockfile, the traces of --trace/--resume, the sources, and stderr; and the build's compile
// settings applied to the specs first.
#include <memory>
#include <string>
#include <vector>

#include "cli/tune_options.h"
#include "core/tune_backend.h"

namespace kev::cli {

// `kernels`: how many kernels the run tunes (several: one trace per kernel).
[[nodiscard]] std::unique_ptr<TuneStore> make_tune_store(const TuneOptions& options,
                                                         std::size_t kernels);
// Notes, warnings and errors as report() and warn() print them; progress as cli/progress.h.
[[nodiscard]] std::unique_ptr<TuneConsole> make_tune_console();

// --compile-settings (`option`: tune, check, compare), else KERNELEVO_COMPILE_SETTINGS (set
// by the build's kernelevo-tune target): each selected source (every one when `selected` is
// empty) found there compiles with the build's settings, as the compiler `device_code`
// sends it to takes them. False when there are none.
Result<bool> apply_build_settings(const std::string& option, const TuneBackend& backend,
                                  std::vector<KernelSpec>& specs,
                                  const std::vector<const KernelSpec*>& selected,
                                  DeviceCodeCompiler device_code);

}  // namespace kev::cli
