#include "cuda/source_kind.h"

#include <gtest/gtest.h>

#include "compile_test_support.h"
#include "cuda/files.h"

namespace kev::cuda {
namespace {

TEST(SourceKind, DeviceOnlySourcesGoToNvrtc) {
  EXPECT_EQ(choose_compiler(
                "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n"
                "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n"),
            CompilerKind::nvrtc);
}

TEST(SourceKind, HostHeadersLaunchesAndMainNeedNvcc) {
  EXPECT_EQ(choose_compiler("#include <vector>\n"), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler("  #  include   <cstdio>\n"), CompilerKind::nvcc);
  // NVRTC 13.0 cannot open even these.
  EXPECT_EQ(choose_compiler("#include <cstdint>\n"), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler("#include <type_traits>\n"), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler("void f(float* x) { k<<<1, 32>>>(x); }\n"), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler("int main() { return 0; }\n"), CompilerKind::nvcc);
  EXPECT_EQ(choose_compiler("int main(int argc, char** argv) { return 0; }\n"), CompilerKind::nvcc);
}

TEST(SourceKind, CommentsAndStringsDoNotCount) {
  EXPECT_FALSE(
      holds_host_code("// launch with k<<<grid, block>>>(x)\n"
                      "/* #include <vector>\n int main() */\n"
                      "__device__ const char* s = \"<<<\";\n"));
  EXPECT_FALSE(holds_host_code("__device__ int maintain(int x) { return x; }\n"));
}

TEST(SourceKind, HostCodeGuardedFromNvrtcDoesNotCount) {
  EXPECT_FALSE(
      holds_host_code("#ifndef __CUDACC_RTC__\n#include <vector>\nint main() {}\n#endif\n"));
  EXPECT_FALSE(holds_host_code("#if !defined(__CUDACC_RTC__)\n#include <vector>\n#endif\n"));
  // ...but the #else branch is what NVRTC sees.
  EXPECT_TRUE(holds_host_code("#ifndef __CUDACC_RTC__\n#else\n#include <vector>\n#endif\n"));
  // Nested conditionals inside the guard stay hidden; code after it counts again.
  EXPECT_FALSE(holds_host_code("#ifndef __CUDACC_RTC__\n#if X\n#endif\n#include <map>\n#endif\n"));
  EXPECT_TRUE(holds_host_code("#ifndef __CUDACC_RTC__\n#endif\n#include <map>\n"));
  // Other conditions are not evaluated: host code under them counts.
  EXPECT_TRUE(holds_host_code("#ifdef USE_HOST\n#include <vector>\n#endif\n"));
}

TEST(SourceKind, TheSpikeFixtureHoldsHostCodeAndTheTemplatesDoNot) {
  const auto mixed = read_whole_file(testing::fixture("mixed/softmax_lib.cu"));
  ASSERT_TRUE(mixed.has_value());
  EXPECT_TRUE(holds_host_code(*mixed));
  for (const char* t : {"templates/softmax.cu", "templates/rmsnorm.cu"}) {
    const auto text = read_whole_file(testing::source_dir_file(t));
    ASSERT_TRUE(text.has_value()) << t;
    EXPECT_FALSE(holds_host_code(*text)) << t;
  }
}

}  // namespace
}  // namespace kev::cuda
