#include "cuda/helper_kernels.h"

#include <gtest/gtest.h>

#include "cuda/cubin.h"
#include "cuda/nvrtc_compiler.h"

namespace kev::cuda {
namespace {

CompileOutput compile(const char* text, const char* kernel) {
  CompileRequest r;
  r.source_path = "helpers.cu";
  r.source_text = text;
  r.kernel_names = {kernel};
  r.arch = "sm_90";
  NvrtcCompiler nvrtc;
  return nvrtc.compile(r);
}

// The flush evicts a timed kernel's code only while kev_evict_code's body stays straight-line
// code larger than the SMs' instruction caches: a compiler that rolled or dropped the chain
// would leave every timed launch its code warm again, silently.
TEST(HelperKernels, TheCodeEvictionKernelKeepsItsQuarterMebibyteOfCode) {
  const CompileOutput out = compile(evict_code_source(), "kev_evict_code");
  ASSERT_TRUE(out.ok) << out.log;
  const auto info = read_cubin(out.image);
  ASSERT_TRUE(info.has_value());
  ASSERT_TRUE(info->section_sizes.count(".text.kev_evict_code"));
  EXPECT_GE(info->section_sizes.at(".text.kev_evict_code"), 240u * 1024);
}

TEST(HelperKernels, TheRunnersOtherHelpersCompile) {
  const CompileOutput out = compile(helper_kernels_source(), "kev_read");
  ASSERT_TRUE(out.ok) << out.log;
}

}  // namespace
}  // namespace kev::cuda
