#include "cuda/nvrtc_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "compile_test_support.h"
#include "cuda/cubin.h"
#include "cuda/toolkit.h"

namespace kev::cuda {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

constexpr const char* kScaleSource = R"(
#include <cuda_runtime.h>
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 128
#endif
extern "C" __global__ void __launch_bounds__(SCALE_BLOCK) scale(float* x, int n) {
  __shared__ float tile[SCALE_BLOCK];
  const int i = blockIdx.x * SCALE_BLOCK + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) x[i] = 2.f * tile[SCALE_BLOCK - 1 - threadIdx.x];
}
template <int N> __global__ void fill(float* x) { x[threadIdx.x] = N; }
template __global__ void fill<3>(float*);
)";

CompileRequest scale_request() {
  CompileRequest r;
  r.source_path = "scale.cu";
  r.source_text = kScaleSource;
  r.kernel_names = {"scale"};
  r.arch = "sm_90";
  return r;
}

TEST(NvrtcCompiler, CompilesAnExternCKernelToCubin) {
  NvrtcCompiler nvrtc;
  const auto out = nvrtc.compile(scale_request());
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_names.at("scale"), "scale");
  const auto info = read_cubin(out.image);
  ASSERT_TRUE(info.has_value());
  EXPECT_THAT(info->kernels, ::testing::Contains("scale"));
  EXPECT_FALSE(out.cached);
  EXPECT_GT(out.seconds, 0.0);
}

TEST(NvrtcCompiler, DefinesReachTheDeviceCode) {
  NvrtcCompiler nvrtc;
  auto request = scale_request();
  request.defines = {{"SCALE_BLOCK", "512"}};
  const auto big = nvrtc.compile(request);
  request.defines = {{"SCALE_BLOCK", "64"}};
  const auto small = nvrtc.compile(request);
  ASSERT_TRUE(big.ok && small.ok) << big.log << small.log;
  // The __shared__ tile is SCALE_BLOCK floats (the section also holds the 1 KiB the
  // architecture reserves, the same for both).
  const auto big_bytes = read_cubin(big.image)->section_sizes.at(".nv.shared.scale");
  const auto small_bytes = read_cubin(small.image)->section_sizes.at(".nv.shared.scale");
  EXPECT_GE(small_bytes, 64u * 4u);
  EXPECT_EQ(big_bytes - small_bytes, (512u - 64u) * 4u);
}

TEST(NvrtcCompiler, ResolvesTemplateInstancesThroughNameExpressions) {
  NvrtcCompiler nvrtc;
  auto request = scale_request();
  request.kernel_names = {"fill<3>", "fill<SCALE_BLOCK>"};
  request.defines = {{"SCALE_BLOCK", "7"}};
  const auto out = nvrtc.compile(request);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_names.at("fill<3>"), "_Z4fillILi3EEvPf");
  EXPECT_EQ(out.lowered_names.at("fill<SCALE_BLOCK>"), "_Z4fillILi7EEvPf");
}

TEST(NvrtcCompiler, ReportsCompileErrorsWithFileAndLine) {
  NvrtcCompiler nvrtc;
  auto request = scale_request();
  request.source_text =
      "extern \"C\" __global__ void broken(float* x) {\n  x[0] = undefined_name;\n}\n";
  request.kernel_names = {"broken"};
  const auto out = nvrtc.compile(request);
  EXPECT_FALSE(out.ok);
  EXPECT_TRUE(out.image.empty());
  EXPECT_THAT(out.log, HasSubstr("scale.cu(2)"));
  EXPECT_THAT(out.log, HasSubstr("undefined_name"));
}

TEST(NvrtcCompiler, FailsWhenAKernelNameIsMissing) {
  NvrtcCompiler nvrtc;
  auto request = scale_request();
  request.kernel_names = {"no_such_kernel"};
  const auto out = nvrtc.compile(request);
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.log, HasSubstr("no_such_kernel"));
}

TEST(NvrtcCompiler, CompilesForOtherArchitectures) {
  NvrtcCompiler nvrtc;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    auto request = scale_request();
    request.arch = arch;
    const auto out = nvrtc.compile(request);
    EXPECT_TRUE(out.ok) << arch << ": " << out.log;
  }
}

TEST(NvrtcCompiler, FindsHeadersThroughIncludeDirsAndReportsThem) {
  TempDir dir;
  const auto header = dir.write("inc/factor.cuh", "#pragma once\n#define FACTOR 3.0f\n");
  const auto local = dir.write("src/local.cuh", "#include <factor.cuh>\n");
  const auto source = dir.write(
      "src/k.cu",
      "#include \"local.cuh\"\nextern \"C\" __global__ void k(float* x) { x[0] = FACTOR; }\n");
  CompileRequest request;
  request.source_path = source;  // read from disk: source_text is empty
  request.kernel_names = {"k"};
  request.include_dirs = {dir.file("inc")};
  NvrtcCompiler nvrtc;
  const auto out = nvrtc.compile(request);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_THAT(out.dependencies, ::testing::UnorderedElementsAre(header, local));
}

TEST(NvrtcCompiler, FindsTheToolkitsDeviceHeaders) {
  NvrtcCompiler nvrtc;
  CompileRequest request;
  request.source_path = "headers.cu";
  request.source_text =
      "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n"
      "extern \"C\" __global__ void k(__half* x, cuda::std::int64_t n) { x[0] = __float2half(1.f); "
      "}\n";
  request.kernel_names = {"k"};
  const auto out = nvrtc.compile(request);
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_TRUE(out.dependencies.empty());  // the toolkit's headers are not project headers
}

// Some machines reach the toolkit through a directory of links to its headers, and find a
// wrapper nvcc there; those headers are the toolkit's all the same.
TEST(NvrtcCompiler, ToolkitHeadersReachedThroughLinksAreNotProjectHeaders) {
  TempDir dir;
  const std::string real = toolkit_include_dir();
  if (!std::filesystem::exists(real + "/cuda_runtime.h")) GTEST_SKIP() << "no toolkit headers";
  std::filesystem::create_directories(dir.file("include"));
  for (const auto& entry : std::filesystem::directory_iterator(real)) {
    std::filesystem::create_symlink(entry.path(),
                                    dir.file("include/" + entry.path().filename().string()));
  }
  NvrtcCompiler nvrtc(NvrtcOptions{.toolkit_include = dir.file("include")});
  CompileRequest request;
  request.source_path = "headers.cu";
  request.source_text =
      "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n"
      "extern \"C\" __global__ void k(__half* x, cuda::std::int64_t n) { x[0] = __float2half(1.f); "
      "}\n";
  request.kernel_names = {"k"};
  const auto out = nvrtc.compile(request);
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_THAT(out.dependencies, ::testing::IsEmpty());
}

TEST(NvrtcCompiler, IdentityNamesTheVersion) {
  EXPECT_THAT(NvrtcCompiler().identity(), ::testing::MatchesRegex("nvrtc [0-9]+\\.[0-9]+"));
}

}  // namespace
}  // namespace kev::cuda
