#include "io/compile_settings_apply.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace kev {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Flags = std::vector<std::string>;

TEST(CubinFlags, DropsOutputDependencyArchitectureAndHostFlags) {
  const Flags build = {"-c",
                       "-o",
                       "obj.o",
                       "-MD",
                       "-MT",
                       "obj.o",
                       "-MF",
                       "obj.d",
                       "-Xcompiler",
                       "-fPIC",
                       "-Xcompiler=-Wall,-Wextra",
                       "-ccbin",
                       "g++-13",
                       "--generate-code=arch=compute_90,code=sm_90",
                       "-arch",
                       "sm_80",
                       "-rdc=true",
                       "-forward-unknown-to-host-compiler",
                       "-fPIC",
                       "-Wall",
                       "--use_fast_math",
                       "-lineinfo",
                       "-Xptxas",
                       "-v",
                       "-ftz=true",
                       "--expt-relaxed-constexpr"};
  Flags dropped;
  // -Xptxas' value "-v" is kept as the flag after it: nvcc takes both in that order.
  EXPECT_EQ(cubin_flags(build, SettingsCompiler::nvcc, dropped),
            (Flags{"--use_fast_math", "-lineinfo", "-Xptxas", "-v", "-ftz=true",
                   "--expt-relaxed-constexpr"}));
  EXPECT_EQ(dropped.size(), 14u);
  EXPECT_THAT(dropped[0], HasSubstr("'-c'"));
  EXPECT_THAT(dropped[1], HasSubstr("'-o obj.o'"));
}

TEST(CubinFlags, NvrtcKeepsOnlyTheDeviceCodeFlagsItTakes) {
  Flags dropped;
  EXPECT_EQ(cubin_flags({"--use_fast_math", "-lineinfo", "-Xptxas", "-ftz=true", "-std=c++17",
                         "--expt-relaxed-constexpr", "-O3"},
                        SettingsCompiler::nvrtc, dropped),
            (Flags{"--use_fast_math", "-lineinfo", "-ftz=true", "-std=c++17"}));
  EXPECT_EQ(dropped.size(), 3u);
  EXPECT_THAT(dropped[0], HasSubstr("NVRTC does not take it"));
}

KernelSpec tuned_spec() {
  KernelSpec spec;
  spec.id = "scale";
  spec.kernel = "scale";
  spec.source = "src/scale.cu";
  spec.params = {ParamSpec{"BLOCK", {Value(128), Value(256)}, {}}};
  spec.defines = {"MODE=1"};
  spec.include_dirs = {"/spec/inc"};
  return spec;
}

TEST(ApplyCompileSettings, AddsIncludesDefinesAndFlagsButNotTunedParameters) {
  KernelSpec spec = tuned_spec();
  CompileSettings settings;
  settings.source = "src/scale.cu";
  settings.cuda_standard = "17";
  settings.include_dirs = {"/build/inc", "/spec/inc"};
  settings.defines = {"USE_FAST=1", "BLOCK=64", "MODE=2", "FLAG"};
  settings.options = {"-c", "-I/opt/extra", "-D", "FROM_OPTIONS=3", "--use_fast_math"};
  const auto notes = apply_compile_settings(spec, settings, SettingsCompiler::nvrtc);

  EXPECT_THAT(spec.include_dirs, ElementsAre("/spec/inc", "/build/inc", "/opt/extra"));
  EXPECT_THAT(spec.defines, ElementsAre("MODE=1", "USE_FAST=1", "FLAG", "FROM_OPTIONS=3"));
  EXPECT_THAT(spec.flags, ElementsAre("--use_fast_math", "-std=c++17"));
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_THAT(notes[0], HasSubstr("'BLOCK=64' names the tuned parameter BLOCK"));
  EXPECT_THAT(notes[1], HasSubstr("the spec's own define of MODE"));
  EXPECT_THAT(notes[2], HasSubstr("'-c'"));
}

TEST(ApplyCompileSettings, TheSpecsStandardWins) {
  KernelSpec spec = tuned_spec();
  spec.flags = {"-std=c++20"};
  CompileSettings settings;
  settings.cuda_standard = "17";
  settings.options = {"-std=c++17"};
  (void)apply_compile_settings(spec, settings, SettingsCompiler::nvcc);
  EXPECT_THAT(spec.flags, ElementsAre("-std=c++20"));
}

TEST(LoadCompileSettings, ReadsADirectoryAndFindsTheSource) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  for (const char* name : {"a", "b"}) {
    CompileSettings s;
    s.source = (dir / (std::string(name) + ".cu")).string();
    s.defines = {std::string("WHICH_") + name};
    std::ofstream(dir / (std::string(name) + ".json")) << compile_settings_json(s);
  }
  std::ofstream(dir / "notes.txt") << "not settings";
  auto all = load_compile_settings(dir);
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  ASSERT_EQ(all->size(), 2u);
  const CompileSettings* b = settings_for_source(*all, (dir / "." / "b.cu").string());
  ASSERT_NE(b, nullptr);
  EXPECT_THAT(b->defines, ElementsAre("WHICH_b"));
  EXPECT_EQ(settings_for_source(*all, (dir / "c.cu").string()), nullptr);

  std::ofstream(dir / "broken.json") << "{";
  auto broken = load_compile_settings(dir);
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.error().to_string(), HasSubstr("broken.json"));
  EXPECT_FALSE(load_compile_settings(dir / "missing.json").ok());
}

}  // namespace
}  // namespace kev
