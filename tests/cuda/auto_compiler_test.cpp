// Which compiler the AutoCompiler sends a CUDA C++ source to: nvcc, as a CMake build
// compiles it, unless NVRTC is asked for device-only code; a source with host code always
// goes to nvcc.
#include "cuda/auto_compiler.h"

#include <gtest/gtest.h>

#include "support/fakes.h"

namespace kev::cuda {
namespace {

using kev::testing::FakeCompiler;

CompileRequest request(const std::string& text) {
  CompileRequest r;
  r.source_path = "k.cu";
  r.source_text = text;
  r.kernel_names = {"k"};
  return r;
}

const std::string kDeviceOnly = "__global__ void k(float* y) { y[0] = 1.f; }\n";
const std::string kWithHostCode = "#include <vector>\n" + kDeviceOnly;

TEST(AutoCompiler, SendsDeviceOnlyCodeToNvccByDefault) {
  FakeCompiler nvrtc, nvcc;
  AutoCompiler compiler(nvrtc, nvcc);
  EXPECT_TRUE(compiler.compile(request(kDeviceOnly)).ok);
  EXPECT_EQ(nvcc.calls.load(), 1);
  EXPECT_EQ(nvrtc.calls.load(), 0);
}

TEST(AutoCompiler, SendsDeviceOnlyCodeToNvrtcWhenAskedAndHostCodeStillToNvcc) {
  FakeCompiler nvrtc, nvcc;
  AutoCompiler compiler(nvrtc, nvcc, nullptr, DeviceCodeCompiler::nvrtc);
  EXPECT_EQ(&compiler.route(request(kDeviceOnly)), &nvrtc);
  EXPECT_EQ(&compiler.route(request(kWithHostCode)), &nvcc);
  CompileRequest flagged = request(kDeviceOnly);
  flagged.host_code = true;
  EXPECT_EQ(&compiler.route(flagged), &nvcc);
}

}  // namespace
}  // namespace kev::cuda
