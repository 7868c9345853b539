#pragma once
// The build's compile settings (io/compile_settings.h) applied to a kernel spec, so every
// compile of a marked source sees the include directories, defines and device flags the
// build uses. The rule for which flags survive a -cubin compile is in
// docs/build-integration.md ("What the tuner uses").
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/spec.h"
#include "io/compile_settings.h"

namespace kev {

// Which compiler will compile the source: NVRTC takes fewer flags than nvcc.
enum class SettingsCompiler { nvrtc, nvcc };

// Reads one settings JSON file, or every *.json file of a directory (what the build's
// `kernelevo-tune` target passes in KERNELEVO_COMPILE_SETTINGS).
[[nodiscard]] Result<std::vector<CompileSettings>> load_compile_settings(
    const std::filesystem::path& file_or_dir);

// The settings whose `source` is the same file as `source` (relative paths are taken from
// the current directory), or nullptr.
[[nodiscard]] const CompileSettings* settings_for_source(const std::vector<CompileSettings>& all,
                                                         const std::string& source);

// The build options that make sense for a -cubin compile by `compiler`; each one dropped
// is described in `dropped`.
[[nodiscard]] std::vector<std::string> cubin_flags(const std::vector<std::string>& options,
                                                   SettingsCompiler compiler,
                                                   std::vector<std::string>& dropped);

// Adds the settings' include directories, defines and kept flags to `spec`. A define of a
// tuned parameter is dropped (the candidate's -D value is what is measured), as is one the
// spec defines itself. Returns a note for everything dropped, for the user to see.
std::vector<std::string> apply_compile_settings(KernelSpec& spec, const CompileSettings& settings,
                                                SettingsCompiler compiler);

}  // namespace kev
