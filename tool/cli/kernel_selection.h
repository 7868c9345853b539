#pragma once
// The marked kernels a command works on: the specs found under its paths and those of them
// that `--kernel` names.
#include <string>
#include <vector>

#include "io/spec_loader.h"

namespace kev::cli {

struct KernelSelection {
  SpecLoad load;
  std::vector<const KernelSpec*> selected;  // into load.specs (a move keeps them valid)
  int exit_code = 0;                        // not 0: already reported; the command returns it
};

// Loads the specs under `paths`, prints their warnings and reports every error, and selects
// those whose id is `kernel` (every one when empty); none selected is an error.
[[nodiscard]] KernelSelection select_kernels(const std::vector<std::string>& paths,
                                             const std::string& kernel);

}  // namespace kev::cli
