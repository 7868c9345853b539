#include "cuda/helper_kernels.h"

#include <gtest/gtest.h>

#include "cuda/cubin.h"
#include "cuda/nvrtc_compiler.h"

namespace kev::cuda {
namespace {

CompileOutput compile(const char* text, const char* kernel, const char* arch = "sm_90") {
  CompileRequest r;
  r.source_path = "helpers.cu";
  r.source_text = text;
  r.kernel_names = {kernel};
  r.arch = arch;
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

// The flush returns the timed buffers' lines to the normal eviction priority with
// applypriority, which needs sm_80: there the kernel has its loop; before, an empty body.
TEST(HelperKernels, TheDemotionKernelHasItsLoopFromSm80) {
  const auto text_bytes = [](const char* arch) -> std::size_t {
    const CompileOutput out = compile(helper_kernels_source(), "kev_demote_l2", arch);
    EXPECT_TRUE(out.ok) << out.log;
    const auto info = read_cubin(out.image);
    if (!info || !info->section_sizes.count(".text.kev_demote_l2")) return 0;
    return info->section_sizes.at(".text.kev_demote_l2");
  };
  const std::size_t sm80 = text_bytes("sm_80"), sm75 = text_bytes("sm_75");
  EXPECT_GT(sm75, 0u);
  EXPECT_GT(sm80, sm75 + 64);
}

}  // namespace
}  // namespace kev::cuda
