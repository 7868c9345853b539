// The build's compile settings reach the compile requests of a marked source, and a source
// that needs them compiles with them (NVRTC and nvcc) and fails without them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compile_test_support.h"
#include "cuda/compile_request.h"
#include "cuda/files.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"
#include "io/compile_settings_apply.h"

namespace kev::cuda {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Pair;

KernelSpec scale_spec() {
  KernelSpec spec;
  spec.id = "scale";
  spec.kernel = "scale";
  spec.source = testing::fixture("compile_settings/kernel.cu");
  spec.params = {ParamSpec{"BLOCK", {Value(128), Value(256)}, {}}};
  return spec;
}

CompileSettings build_settings() {
  CompileSettings s;
  s.source = testing::fixture("compile_settings/kernel.cu");
  s.cuda_standard = "17";
  s.include_dirs = {testing::fixture("compile_settings/include")};
  s.defines = {"SETTINGS_SCALE=3.0f", "BLOCK=64"};
  s.options = {"-c",  "-Xcompiler", "-fPIC",    "--use_fast_math",
               "-MD", "-o",         "kernel.o", "-lineinfo"};
  return s;
}

CompileRequest request(const KernelSpec& spec) {
  const auto text = read_whole_file(spec.source);
  EXPECT_TRUE(text.has_value());
  return compile_request_for(spec, text.value_or(""), {{"BLOCK", Value(256)}}, "sm_90", false);
}

TEST(CompileSettingsRequest, CarriesTheBuildsIncludesDefinesAndFlags) {
  KernelSpec spec = scale_spec();
  (void)apply_compile_settings(spec, build_settings(), SettingsCompiler::nvrtc);
  const CompileRequest r = request(spec);
  EXPECT_THAT(r.include_dirs, ElementsAre(testing::fixture("compile_settings/include")));
  // The build's BLOCK=64 is gone: the candidate's value is the only BLOCK.
  EXPECT_THAT(r.defines, ElementsAre(Pair("SETTINGS_SCALE", "3.0f"), Pair("BLOCK", "256")));
  EXPECT_THAT(r.flags, ElementsAre("--use_fast_math", "-lineinfo", "-std=c++17"));
  EXPECT_EQ(r.arch, "sm_90");
  EXPECT_FALSE(r.host_code);

  KernelSpec for_nvcc = scale_spec();
  (void)apply_compile_settings(for_nvcc, build_settings(), SettingsCompiler::nvcc);
  EXPECT_THAT(request(for_nvcc).flags, ElementsAre("--use_fast_math", "-lineinfo", "-std=c++17"));
}

TEST(CompileSettingsRequest, ASpecDefineOfATunedParameterDoesNotReachTheCompile) {
  KernelSpec spec = scale_spec();
  spec.defines = {"BLOCK=64", "OTHER"};
  EXPECT_THAT(request(spec).defines, ElementsAre(Pair("OTHER", ""), Pair("BLOCK", "256")));
}

TEST(CompileSettingsCompile, NvrtcCompilesOnlyWithTheSettings) {
  NvrtcCompiler nvrtc;
  const auto without = nvrtc.compile(request(scale_spec()));
  EXPECT_FALSE(without.ok);
  EXPECT_THAT(without.log, ::testing::HasSubstr("settings_only.h"));

  KernelSpec spec = scale_spec();
  (void)apply_compile_settings(spec, build_settings(), SettingsCompiler::nvrtc);
  const auto with = nvrtc.compile(request(spec));
  ASSERT_TRUE(with.ok) << with.log;
  EXPECT_THAT(with.lowered_names, Contains(Pair("scale", "scale")));
}

TEST(CompileSettingsCompile, NvccCompilesOnlyWithTheSettings) {
  NvccCompiler nvcc;
  EXPECT_FALSE(nvcc.compile(request(scale_spec())).ok);

  KernelSpec spec = scale_spec();
  (void)apply_compile_settings(spec, build_settings(), SettingsCompiler::nvcc);
  const auto with = nvcc.compile(request(spec));
  ASSERT_TRUE(with.ok) << with.log;
  EXPECT_FALSE(with.image.empty());

  // Only the include directory from the settings: the build's define is still missing.
  KernelSpec includes_only = scale_spec();
  includes_only.include_dirs = build_settings().include_dirs;
  EXPECT_FALSE(nvcc.compile(request(includes_only)).ok);
}

}  // namespace
}  // namespace kev::cuda
