// The compile spike (docs/spike-compile.md): a realistic .cu file mixing host code with a
// marked template kernel, compiled for sm_90 with NVRTC and with nvcc -cubin under -D
// parameter values, with evidence that the values land in the binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compile_test_support.h"
#include "cuda/auto_compiler.h"
#include "cuda/cubin.h"
#include "cuda/files.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/source_kind.h"

namespace kev::cuda {
namespace {

using ::testing::HasSubstr;

const char* kKernel = "softmax_block<LIB_SOFTMAX_BLOCK>";

CompileRequest request(const std::string& fixture_file, const std::string& block,
                       const std::string& items) {
  CompileRequest r;
  r.source_path = testing::fixture(fixture_file);
  r.kernel_names = {kKernel};
  r.defines = {{"LIB_SOFTMAX_BLOCK", block}, {"LIB_SOFTMAX_ITEMS", items}};
  r.arch = "sm_90";
  return r;
}

std::uint64_t shared_bytes(const CompileOutput& out) {
  const auto info = read_cubin(out.image);
  if (!info || out.lowered_names.count(kKernel) == 0) return 0;
  const auto it = info->section_sizes.find(".nv.shared." + out.lowered_names.at(kKernel));
  return it == info->section_sizes.end() ? 0 : it->second;
}

TEST(SpikeCompile, NvrtcCannotCompileTheFileAsWritten) {
  NvrtcCompiler nvrtc;
  const auto out = nvrtc.compile(request("mixed/softmax_lib.cu", "256", "4"));
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.log, HasSubstr("cannot open source file \"cstdio\""));
}

TEST(SpikeCompile, NvrtcRejectsHostFunctionsEvenWithoutHostHeaders) {
  NvrtcCompiler nvrtc;
  CompileRequest r;
  r.source_path = "host_function.cu";
  r.source_text = "void launch(float* x) {}\nextern \"C\" __global__ void k(float* x) {}\n";
  r.kernel_names = {"k"};
  const auto out = nvrtc.compile(r);
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.log, HasSubstr("host functions are not allowed in JIT mode"));
}

TEST(SpikeCompile, NvccCompilesTheFileAsWrittenAndTheDefinesLandInTheBinary) {
  NvccCompiler nvcc;
  const auto a = nvcc.compile(request("mixed/softmax_lib.cu", "512", "4"));
  const auto b = nvcc.compile(request("mixed/softmax_lib.cu", "256", "4"));
  ASSERT_TRUE(a.ok && b.ok) << a.log << b.log;
  EXPECT_EQ(a.lowered_names.at(kKernel), "_Z13softmax_blockILi512EEvPKfPfii");
  EXPECT_EQ(b.lowered_names.at(kKernel), "_Z13softmax_blockILi256EEvPKfPfii");
  EXPECT_EQ(shared_bytes(a) - shared_bytes(b), (512u - 256u) * 4u * 4u);
}

TEST(SpikeCompile, GuardingHostCodeWithCudaccRtcLetsNvrtcCompileIt) {
  NvrtcCompiler nvrtc;
  NvccCompiler nvcc;
  const auto rtc = nvrtc.compile(request("mixed/softmax_lib_guarded.cu", "512", "2"));
  const auto cc = nvcc.compile(request("mixed/softmax_lib_guarded.cu", "512", "2"));
  ASSERT_TRUE(rtc.ok) << rtc.log;
  ASSERT_TRUE(cc.ok) << cc.log;
  // Both name the same instance and give it the same shared memory.
  EXPECT_EQ(rtc.lowered_names.at(kKernel), cc.lowered_names.at(kKernel));
  EXPECT_EQ(shared_bytes(rtc), shared_bytes(cc));
  EXPECT_GT(shared_bytes(rtc), (512u * 2u) * 4u);
}

TEST(SpikeCompile, TheRightCompilerIsChosenForEachFile) {
  const auto plain = read_whole_file(testing::fixture("mixed/softmax_lib.cu"));
  const auto guarded = read_whole_file(testing::fixture("mixed/softmax_lib_guarded.cu"));
  ASSERT_TRUE(plain && guarded);
  EXPECT_EQ(choose_compiler(*plain), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler(*guarded), CompilerKind::nvrtc);

  NvrtcCompiler nvrtc;
  NvccCompiler nvcc;
  // NVRTC where asked for device-only code (the default is nvcc, the build's compiler).
  AutoCompiler automatic(nvrtc, nvcc, nullptr, DeviceCodeCompiler::nvrtc);
  EXPECT_EQ(&automatic.route(request("mixed/softmax_lib.cu", "256", "4")), &nvcc);
  EXPECT_EQ(&automatic.route(request("mixed/softmax_lib_guarded.cu", "256", "4")), &nvrtc);
  auto forced = request("mixed/softmax_lib_guarded.cu", "256", "4");
  forced.host_code = true;
  EXPECT_EQ(&automatic.route(forced), &nvcc);
  const auto out = automatic.compile(request("mixed/softmax_lib.cu", "128", "1"));
  EXPECT_TRUE(out.ok) << out.log;
}

}  // namespace
}  // namespace kev::cuda
