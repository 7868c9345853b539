#pragma once
// The build's check that a marked source's host code never uses, at compile time, a
// parameter whose built architectures lock different values (docs/build-integration.md,
// "Host code when architectures disagree"). nvcc's host pass also evaluates device bodies,
// so the header alone cannot tell such a use from `__shared__ float s[BLOCK]`; the check
// compiles the source's host code alone (core/host_view.h) with the build's compiler and
// settings and every constant evaluation of such a parameter made an error
// (KERNELEVO_PARAMS_HOST_CHECK), and names each use by the source's file and line.
#include <string>
#include <vector>

#include "core/host_use_diagnostics.h"
#include "core/result.h"
#include "io/compile_settings.h"

namespace kev::cli {

struct HostUseCheck {
  std::string source;       // the marked source, as the build names it
  std::string source_text;  // its contents
  std::string header_dir;   // holds the kernelevo/params.h just written
  CompileSettings settings;
  std::vector<std::string> archs;  // the built architectures: "sm_80", "sm_90a"
  std::vector<HostDisagreement> disagreements;
};

struct HostUseVerdict {
  std::vector<Error> uses;            // the build fails on any
  std::vector<std::string> warnings;  // the check could not run: the build goes on
};

[[nodiscard]] HostUseVerdict check_host_compile_time_uses(const HostUseCheck& check);

}  // namespace kev::cli
