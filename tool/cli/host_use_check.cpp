#include "cli/host_use_check.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "core/host_view.h"
#include "io/atomic_file.h"
#include "io/compile_settings_apply.h"
#include "io/source_selection.h"
#include "io/subprocess.h"

namespace kev::cli {
namespace {

namespace fs = std::filesystem;

// The first line of a tool's output, for a one-line warning.
std::string first_line(const std::string& output) {
  return output.substr(0, std::min<std::size_t>(output.find('\n'), 200));
}

constexpr double kTimeLimitSeconds = 300;

// "sm_90a" -> "compute_90a": the host pass needs only the architecture list, so each is
// built as PTX alone.
std::string virtual_arch(const std::string& arch) { return "compute_" + arch.substr(3); }

std::vector<std::string> command(const HostUseCheck& check, const fs::path& view,
                                 const fs::path& output) {
  const CompileSettings& s = check.settings;
  // Warnings stay on: a host use of a derived constant is a deprecation warning.
  std::vector<std::string> argv{s.compiler, "-cuda", "-x", "cu"};
  for (const auto& arch : check.archs)
    argv.push_back("--generate-code=arch=" + virtual_arch(arch) + ",code=" + virtual_arch(arch));
  std::vector<std::string> dropped;
  std::vector<std::string> flags = cubin_flags(s.options, SettingsCompiler::nvcc, dropped);
  bool has_std = false;
  for (const auto& f : flags)
    has_std = has_std || f.rfind("-std=", 0) == 0 || f.rfind("--std=", 0) == 0;
  if (!has_std && !s.cuda_standard.empty()) argv.push_back("-std=c++" + s.cuda_standard);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back("-I" + check.header_dir);
  for (const auto& dir : s.include_dirs) argv.push_back("-I" + dir);
  for (const auto& d : s.defines) argv.push_back("-D" + d);
  argv.push_back("-DKERNELEVO_PARAMS_HOST_CHECK=1");
  argv.push_back(view.string());
  argv.push_back("-o");
  argv.push_back(output.string());
  return argv;
}

// The host compiler nvcc would run (-ccbin or g++), checking nvcc's host code output.
std::vector<std::string> host_compiler_command(const HostUseCheck& check, const fs::path& output) {
  std::string compiler = "g++";
  const auto& options = check.settings.options;
  std::string standard =
      check.settings.cuda_standard.empty() ? "" : "-std=c++" + check.settings.cuda_standard;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    for (const std::string flag : {"-ccbin", "--compiler-bindir"}) {
      if (o == flag && i + 1 < options.size()) compiler = options[i + 1];
      if (o.rfind(flag + "=", 0) == 0) compiler = o.substr(flag.size() + 1);
    }
    if (o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0)
      standard = "-std=" + o.substr(o.find('=') + 1);
  }
  std::vector<std::string> argv{compiler, "-fsyntax-only", "-x", "c++"};
  if (!standard.empty()) argv.push_back(standard);
  argv.push_back(output.string());
  return argv;
}

}  // namespace

HostUseVerdict check_host_compile_time_uses(const HostUseCheck& check) {
  HostUseVerdict verdict;
  const std::string what = "the check of " + check.source +
                           "'s host code for compile-time uses "
                           "of parameters the built architectures disagree on";
  if (check.settings.compiler.empty()) {
    verdict.warnings.push_back(what + " is skipped: the build names no CUDA compiler");
    return verdict;
  }
  const fs::path dir = fs::path(check.header_dir) / "kernelevo";
  const fs::path view = dir / "host_check.cu";
  const fs::path output = dir / "host_check.cu.cpp.ii";
  std::error_code ec;
  std::vector<std::string> watched;
  for (const auto& d : check.disagreements) watched.push_back(d.name);
  const HostCodeView host = host_code_view(check.source_text, watched);
  auto text =
      relocated_source(host.text, check.source, fs::absolute(check.source, ec).parent_path());
  if (!text) {
    verdict.warnings.push_back(what + " is skipped: " + text.error().message);
    return verdict;
  }
  if (auto written = write_file_atomically(view.string(), *text); !written) {
    verdict.warnings.push_back(what + " is skipped: " + written.error().message);
    return verdict;
  }
  auto run =
      io::run_process(command(check, view, output), io::scrubbed_environment(), kTimeLimitSeconds);
  if (run.started && !run.timed_out && run.exit_code == 0) {
    // nvcc's front end reports no use of a deprecated name; the host compiler, reading
    // nvcc's host code, does (what it says besides is ignored).
    const auto checked = io::run_process(host_compiler_command(check, output),
                                         io::scrubbed_environment(), kTimeLimitSeconds);
    run.output += checked.output;
  }
  fs::remove(output, ec);
  if (!run.started || run.timed_out || run.signalled) {
    verdict.warnings.push_back(what + " is skipped: " + check.settings.compiler +
                               (run.timed_out ? " ran longer than 300 s" : " did not run") +
                               (run.output.empty() ? "" : ": " + first_line(run.output)));
    return verdict;
  }
  HostUseDiagnostics read =
      read_host_use_diagnostics(run.output, check.disagreements, host.derived);
  verdict.uses = std::move(read.uses);
  if (run.exit_code != 0 && verdict.uses.empty())
    verdict.warnings.push_back(
        what +
        " is skipped: nvcc failed for another reason (the build's "
        "own compile will say why): " +
        (read.other_error.empty() ? first_line(run.output) : read.other_error));
  return verdict;
}

}  // namespace kev::cli
