#include "cuda/nvcc_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compile_test_support.h"
#include "cuda/cubin.h"

namespace kev::cuda {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// The spike's file: host code (<vector>, a launcher with <<<>>>) and a marked template kernel.
CompileRequest mixed_request(std::vector<std::pair<std::string, std::string>> defines) {
  CompileRequest r;
  r.source_path = testing::fixture("mixed/softmax_lib.cu");
  r.kernel_names = {"softmax_block<LIB_SOFTMAX_BLOCK>"};
  r.defines = std::move(defines);
  r.arch = "sm_90";
  r.host_code = true;
  return r;
}

std::uint64_t shared_bytes(const CompileOutput& out, const std::string& symbol) {
  const auto info = read_cubin(out.image);
  if (!info) return 0;
  const auto it = info->section_sizes.find(".nv.shared." + symbol);
  return it == info->section_sizes.end() ? 0 : it->second;
}

TEST(NvccCompiler, CompilesTheKernelOfAFileWithHostCode) {
  NvccCompiler nvcc;
  const auto out =
      nvcc.compile(mixed_request({{"LIB_SOFTMAX_BLOCK", "512"}, {"LIB_SOFTMAX_ITEMS", "2"}}));
  ASSERT_TRUE(out.ok) << out.log;
  // The template instance the launcher uses, found by demangling the CUBIN's symbols.
  EXPECT_EQ(out.lowered_names.at("softmax_block<LIB_SOFTMAX_BLOCK>"),
            "_Z13softmax_blockILi512EEvPKfPfii");
  // -D values land in the binary: partial[Block * ITEMS] plus `result`, in floats, plus
  // the 1 KiB sm_90 reserves.
  EXPECT_EQ(shared_bytes(out, "_Z13softmax_blockILi512EEvPKfPfii"), (512u * 2u + 1u) * 4u + 1024u);
}

TEST(NvccCompiler, DifferentDefinesGiveDifferentImages) {
  NvccCompiler nvcc;
  const auto a =
      nvcc.compile(mixed_request({{"LIB_SOFTMAX_BLOCK", "128"}, {"LIB_SOFTMAX_ITEMS", "8"}}));
  const auto b =
      nvcc.compile(mixed_request({{"LIB_SOFTMAX_BLOCK", "128"}, {"LIB_SOFTMAX_ITEMS", "1"}}));
  ASSERT_TRUE(a.ok && b.ok) << a.log << b.log;
  EXPECT_NE(a.image, b.image);
  const std::string symbol = "_Z13softmax_blockILi128EEvPKfPfii";
  EXPECT_EQ(shared_bytes(a, symbol) - shared_bytes(b, symbol), 128u * (8u - 1u) * 4u);
  EXPECT_GE(shared_bytes(b, symbol), (128u * 1u + 1u) * 4u);
}

TEST(NvccCompiler, UsesTheSourceDefaultsWithoutDefines) {
  // The baseline: no parameter set, so the template name cannot be expanded by kernelevo;
  // the template's only instance is taken.
  NvccCompiler nvcc;
  const auto out = nvcc.compile(mixed_request({}));
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_names.at("softmax_block<LIB_SOFTMAX_BLOCK>"),
            "_Z13softmax_blockILi256EEvPKfPfii");
}

TEST(NvccCompiler, CompilesForSm80AndSm90a) {
  NvccCompiler nvcc;
  for (const char* arch : {"sm_80", "sm_90a"}) {
    auto request = mixed_request({{"LIB_SOFTMAX_BLOCK", "256"}});
    request.arch = arch;
    const auto out = nvcc.compile(request);
    EXPECT_TRUE(out.ok) << arch << ": " << out.log;
  }
}

TEST(NvccCompiler, CompilesSourceTextAndReportsProjectHeaders) {
  TempDir dir;
  const auto header = dir.write("inc/factor.cuh", "#pragma once\n#define FACTOR 3.0f\n");
  CompileRequest request;
  request.source_path = dir.file("src/k.cu");  // does not exist: the text is compiled
  request.source_text =
      "#include <vector>\n#include <factor.cuh>\n"
      "extern \"C\" __global__ void k(float* x) { x[0] = FACTOR; }\n"
      "void launch(float* x) { k<<<1, 1>>>(x); std::vector<int> v; }\n";
  request.kernel_names = {"k"};
  request.include_dirs = {dir.file("inc")};
  NvccCompiler nvcc;
  const auto out = nvcc.compile(request);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.lowered_names.at("k"), "k");
  // Project headers only: <vector> and the toolkit's headers are covered by the identity.
  EXPECT_THAT(out.dependencies, ::testing::ElementsAre(header));
}

TEST(NvccCompiler, ReportsCompileErrorsWithTheFileName) {
  CompileRequest request;
  request.source_path = "broken.cu";
  request.source_text = "extern \"C\" __global__ void k(float* x) {\n  x[0] = nope;\n}\n";
  request.kernel_names = {"k"};
  NvccCompiler nvcc;
  const auto out = nvcc.compile(request);
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.log, HasSubstr("broken.cu(2)"));
  EXPECT_THAT(out.log, HasSubstr("nope"));
}

TEST(NvccCompiler, FailsClearlyWhenNvccIsMissing) {
  NvccOptions options;
  options.nvcc = "/nonexistent/bin/nvcc";
  NvccCompiler nvcc(options);
  EXPECT_THAT(nvcc.identity(), HasSubstr("unavailable"));
  auto request = mixed_request({});
  const auto out = nvcc.compile(request);
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.log, HasSubstr("/nonexistent/bin/nvcc"));
}

TEST(NvccCompiler, IdentityNamesTheRelease) {
  EXPECT_THAT(NvccCompiler().identity(), ::testing::MatchesRegex("nvcc [0-9]+\\.[0-9]+\\.[0-9]+"));
}

TEST(ExpandMacros, SubstitutesWholeIdentifiersOnly) {
  const std::vector<std::pair<std::string, std::string>> defines = {{"B", "256"}, {"V", ""}};
  EXPECT_EQ(expand_macros("softmax<B>", defines), "softmax<256>");
  EXPECT_EQ(expand_macros("f<B, BB, V>", defines), "f<256, BB, 1>");
  EXPECT_EQ(expand_macros("g<2B>", defines), "g<2B>");  // a number with a suffix stays whole
}

}  // namespace
}  // namespace kev::cuda
