#pragma once
// Shared helpers of the compile-only tests: temporary directories and small sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace kev::cuda::testing {

// The shared temporary directory (tests/support/temp_dir.h).
using TempDir = kev::test_support::TempDir;

inline std::string fixture(const std::string& relative) {
  return std::string(KERNELEVO_FIXTURES) + "/" + relative;
}
inline std::string source_dir_file(const std::string& relative) {
  return std::string(KERNELEVO_SOURCE_DIR) + "/" + relative;
}

}  // namespace kev::cuda::testing
