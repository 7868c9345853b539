#pragma once
// Reads sources and the headers they include by `"..."` (found beside the including file)
// for definitions of tuned parameters without an `#ifndef` guard (core/macro_guards.h).
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace kev {

struct FoundDefine {
  std::filesystem::path file;
  int line = 0;
  std::string name;
};

struct MacroScan {
  std::vector<FoundDefine> defines;
  std::vector<std::filesystem::path> files;  // every file read, for a build's depfile
};

// Missing headers are skipped (the compiler finds them elsewhere, or reports them); at most
// kMaxScannedFiles files are read.
inline constexpr std::size_t kMaxScannedFiles = 2000;
[[nodiscard]] Result<MacroScan> scan_unguarded_defines(
    const std::vector<std::filesystem::path>& sources,
    const std::set<std::string, std::less<>>& names);

}  // namespace kev
