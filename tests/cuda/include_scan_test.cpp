#include "cuda/include_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "compile_test_support.h"

namespace kev::cuda {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;

TEST(IncludeScan, FollowsQuotedAndAngleIncludesThroughTheSearchPath) {
  TempDir dir;
  const auto header = dir.write("inc/factor.cuh", "#pragma once\n");
  const auto local = dir.write("src/local.cuh", "#include <factor.cuh>\n#include <vector>\n");
  const auto found =
      scan_includes("#include \"local.cuh\"\n", dir.file("src/k.cu"), {dir.file("inc")});
  EXPECT_THAT(found, ::testing::UnorderedElementsAre(header, local));
}

// The layout of toolkits installed with a directory of links to their headers
// (/usr/local/include/cuda_runtime.h -> /usr/local/cuda-13.0/include/cuda_runtime.h).
TEST(IncludeScan, HeadersOfALinkedToolkitDirectoryAreExcluded) {
  TempDir dir;
  dir.write("cuda-13.0/include/cuda_runtime.h", "#include \"crt/host_config.h\"\n");
  dir.write("cuda-13.0/include/crt/host_config.h", "#pragma once\n");
  dir.write("cuda-13.0/include/cccl/cuda/std/cstdint", "#pragma once\n");
  fs::create_directories(dir.file("linked"));
  for (const char* entry : {"cuda_runtime.h", "crt", "cccl"}) {
    fs::create_symlink(dir.file(std::string("cuda-13.0/include/") + entry),
                       dir.file(std::string("linked/") + entry));
  }
  const std::string source = "#include <cuda_runtime.h>\n#include <cuda/std/cstdint>\n";
  const std::vector<std::string> search = {dir.file("linked"), dir.file("linked/cccl")};

  EXPECT_THAT(scan_includes(source, dir.file("k.cu"), search, dir.file("linked")),
              ::testing::IsEmpty());
  EXPECT_THAT(scan_includes(source, dir.file("k.cu"), search, dir.file("cuda-13.0/include")),
              ::testing::IsEmpty());
}

TEST(IncludeScan, AProjectHeaderReachedThroughALinkStillCounts) {
  TempDir dir;
  const auto real = dir.write("project/common.cuh", "#pragma once\n");
  fs::create_directories(dir.file("toolkit"));
  fs::create_symlink(dir.file("project"), dir.file("src-link"));
  const auto found = scan_includes("#include <common.cuh>\n", dir.file("k.cu"),
                                   {dir.file("src-link")}, dir.file("toolkit"));
  EXPECT_THAT(found, ::testing::ElementsAre(fs::weakly_canonical(real).string()));
}

}  // namespace
}  // namespace kev::cuda
