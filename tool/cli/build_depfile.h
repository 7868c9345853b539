// The dependency file of a build step run by cmake/KernelEvo.cmake (header, select-source).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace kev::cli {

// Writes `depfile` (only when its content changes) naming `depends`, the lockfile and the
// `optional` files (a project kernelevo.yaml), each of these while it exists, else the
// directory it would appear in: the build tolerates one removed after configuring (a
// missing file named by a depfile only re-runs the step) and re-runs the step when it
// appears again (its directory changes).
[[nodiscard]] Status write_build_depfile(const std::string& depfile, const std::string& target,
                                         std::vector<std::filesystem::path> depends,
                                         const std::filesystem::path& lockfile,
                                         const std::vector<std::filesystem::path>& optional = {});

}  // namespace kev::cli
