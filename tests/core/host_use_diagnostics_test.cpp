#include "core/host_use_diagnostics.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

const std::vector<HostDisagreement> kDisagree{{"SCALE_BLOCK", "sm_80: 128, sm_90: 512"},
                                              {"SCALE_VEC", "sm_80: 2, sm_90: 4"}};

TEST(HostUseDiagnostics, NamesTheUseAndTheParameterFromNvccsQuotedLine) {
  // What nvcc 13.0 printed for the check of tests/cmake/split/scale.cu (SPLIT_HOST_CONST).
  const std::string output =
      "scale.cu(29): error: invalid narrowing conversion from \"int\" to \"std::size_t\"\n"
      "  std::array<int, (::kernelevo_params::SCALE_BLOCK_value())> scale_slots{};\n"
      "                  ^\n"
      "\n"
      "1 error detected in the compilation of \"hc.cu\".\n";
  const HostUseDiagnostics d = read_host_use_diagnostics(output, kDisagree);
  ASSERT_EQ(d.uses.size(), 1u);
  EXPECT_EQ(d.uses[0].where.to_string(), "scale.cu:29");
  EXPECT_EQ(d.uses[0].message.rfind(
                "uses SCALE_BLOCK at compile time in host code, but the built architectures "
                "lock different values of SCALE_BLOCK (sm_80: 128, sm_90: 512), so host code "
                "has no one value",
                0),
            0u)
      << d.uses[0].message;
  EXPECT_EQ(d.other_error, "");
}

TEST(HostUseDiagnostics, ReadsTheNoteThatNamesTheFunctionAndEachUseOnce) {
  const std::string output =
      "src/app.cu(12): error: expression must have a constant value\n"
      "  int host_compile_time() { return Holder<v>::value; }\n"
      "                                          ^\n"
      "src/app.cu(3): note #2703-D: cannot call non-constexpr function "
      "\"kernelevo_params::SCALE_VEC_has_no_compile_time_value_in_host_code\"\n"
      "src/app.cu(12): error: expression must have a constant value\n"
      "  (::kernelevo_params::SCALE_VEC_value())\n"
      "src/app.cu(14): error: expression must have a constant value\n"
      "  static_assert((::kernelevo_params::SCALE_BLOCK_value()) % 32 == 0);\n";
  const HostUseDiagnostics d = read_host_use_diagnostics(output, kDisagree);
  ASSERT_EQ(d.uses.size(), 2u);
  EXPECT_EQ(d.uses[0].where.to_string(), "src/app.cu:12");
  EXPECT_NE(d.uses[0].message.find("uses SCALE_VEC at compile time"), std::string::npos);
  EXPECT_NE(d.uses[0].message.find("values of SCALE_VEC (sm_80: 2, sm_90: 4)"), std::string::npos);
  EXPECT_EQ(d.uses[1].where.to_string(), "src/app.cu:14");
  EXPECT_NE(d.uses[1].message.find("uses SCALE_BLOCK"), std::string::npos);
}

TEST(HostUseDiagnostics, AnyOtherFailureIsNoUseAndItsFirstLineIsKept) {
  const std::string output =
      "scale.cu:4:10: fatal error: scale_config.h: No such file or directory\n"
      "    4 | #include \"scale_config.h\"\n"
      "compilation terminated.\n";
  const HostUseDiagnostics d = read_host_use_diagnostics(output, kDisagree);
  EXPECT_TRUE(d.uses.empty());
  EXPECT_EQ(d.other_error, "scale.cu:4:10: fatal error: scale_config.h: No such file or directory");
  // A parameter the architectures agree on is no finding either.
  const HostUseDiagnostics other = read_host_use_diagnostics(
      "a.cu(3): error: x\n  (::kernelevo_params::OTHER_value())\n", kDisagree);
  EXPECT_TRUE(other.uses.empty());
  EXPECT_EQ(other.other_error, "a.cu(3): error: x");
}

TEST(HostUseDiagnostics, AHostUseOfADerivedConstantIsAUseButItsOwnDeclarationsAreNot) {
  // nvcc 13.0's words for a use of a deprecated variable.
  const std::string output =
      "softmax.cu(64): warning #1444-D: variable \"softmax_detail::kBlock\" (declared at line "
      "62) was declared deprecated (\"kernelevo: derived from SOFTMAX_BLOCK\")\n"
      "  [[deprecated(\"kernelevo: derived from SOFTMAX_BLOCK\")]] constexpr int kRows = ...\n"
      "softmax.cu(280): warning #1444-D: variable \"softmax_detail::kBlock\" (declared at line "
      "62) was declared deprecated (\"kernelevo: derived from SOFTMAX_BLOCK\")\n"
      "    config.block = softmax_detail::kBlock;\n"
      "softmax.cu(290): warning #177-D: variable \"unused\" was declared but never referenced\n";
  const std::vector<DerivedConstant> derived{{"kBlock", "SOFTMAX_BLOCK", 62},
                                             {"kRows", "SOFTMAX_BLOCK", 64}};
  const HostUseDiagnostics d =
      read_host_use_diagnostics(output, {{"SOFTMAX_BLOCK", "sm_80: 1024, sm_90: 256"}}, derived);
  ASSERT_EQ(d.uses.size(), 1u);
  EXPECT_EQ(d.uses[0].where.to_string(), "softmax.cu:280");
  EXPECT_EQ(d.uses[0].message.rfind("uses kBlock (derived from SOFTMAX_BLOCK on line 62) in host "
                                    "code, but the built architectures lock different values of "
                                    "SOFTMAX_BLOCK (sm_80: 1024, sm_90: 256)",
                                    0),
            0u)
      << d.uses[0].message;
  EXPECT_EQ(d.other_error, "");
}

TEST(HostUseDiagnostics, ReadsTheHostCompilersDeprecationWarnings) {
  // g++ 12 on nvcc's host code output (the C locale quotes with ').
  const std::string output =
      "softmax.cu: In function 'int host_block()':\n"
      "softmax.cu:290:43: warning: 'softmax_detail::kRowsPerBlock' is deprecated: kernelevo: "
      "derived from SOFTMAX_BLOCK [-Wdeprecated-declarations]\n"
      "  290 | int host_block() { return softmax_detail::kRowsPerBlock; }\n"
      "softmax.cu:64:51: note: declared here\n";
  const HostUseDiagnostics d =
      read_host_use_diagnostics(output, {{"SOFTMAX_BLOCK", "sm_80: 1024, sm_90: 256"}},
                                {{"kRowsPerBlock", "SOFTMAX_BLOCK", 64}});
  ASSERT_EQ(d.uses.size(), 1u);
  EXPECT_EQ(d.uses[0].where.to_string(), "softmax.cu:290");
  EXPECT_EQ(
      d.uses[0].message.rfind("uses kRowsPerBlock (derived from SOFTMAX_BLOCK on line 64)", 0), 0u)
      << d.uses[0].message;
}

}  // namespace
}  // namespace kev
