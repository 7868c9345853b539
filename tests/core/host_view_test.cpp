#include "core/host_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace kev {
namespace {

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

std::string squeeze(const std::string& s) {  // runs of blanks as one, for readable checks
  std::string out;
  for (char c : s)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  return out;
}

TEST(HostView, BlanksDeviceOnlyBodiesAndLaunchBoundsKeepingLines) {
  const std::string source =
      "#include <kernelevo/params.h>\n"
      "extern \"C\" __global__ void __launch_bounds__(BLOCK)\n"
      "k(float* x, int n) {\n"
      "  __shared__ float s[BLOCK];\n"
      "  if (n > 0) { s[0] = x[0]; }\n"
      "}\n"
      "template <int N> __device__ __forceinline__ float twice(float v) { return v * N; }\n"
      "__host__ __device__ int both() { return BLOCK; }\n"
      "std::array<int, BLOCK> host_slots{};\n"
      "void launch(float* x) { k<<<1, BLOCK>>>(x, 1); }\n";
  const std::string view = host_code_view(source).text;
  ASSERT_EQ(view.size(), source.size());
  EXPECT_EQ(lines(view), lines(source));
  EXPECT_EQ(squeeze(view),
            "#include <kernelevo/params.h>\n"
            "extern \"C\" __global__ void \n"
            "k(float* x, int n) {\n"
            " \n"
            " \n"
            "}\n"
            "template <int N> __device__ __forceinline__ float twice(float v) { }\n"
            "__host__ __device__ int both() { return BLOCK; }\n"
            "std::array<int, BLOCK> host_slots{};\n"
            "void launch(float* x) { k<<<1, BLOCK>>>(x, 1); }\n");
}

TEST(HostView, KeepsDeviceVariablesDeclarationsAndHostDeviceFunctions) {
  const std::string source =
      "__device__ float table[BLOCK];\n"
      "__constant__ int c = BLOCK;\n"
      "__device__ int counter{0};\n"
      "__device__ float declared(float v);\n"
      "__device__ __host__ int either(int a = BLOCK) { return a * BLOCK; }\n"
      "struct S { __device__ S() = delete; int v = BLOCK; };\n";
  EXPECT_EQ(host_code_view(source).text, source);
}

TEST(HostView, BlanksDeviceLambdasButNotTheHostCodeAroundThem) {
  const std::string source =
      "void run() {\n"
      "  constexpr int n = BLOCK;\n"
      "  auto f = [] __device__ (int i) { return i * BLOCK; };\n"
      "  auto g = [] __host__ __device__ (int i) { return i * BLOCK; };\n"
      "}\n";
  EXPECT_EQ(squeeze(host_code_view(source).text),
            "void run() {\n"
            " constexpr int n = BLOCK;\n"
            " auto f = [] __device__ (int i) { };\n"
            " auto g = [] __host__ __device__ (int i) { return i * BLOCK; };\n"
            "}\n");
}

TEST(HostView, IsNotFooledByCommentsStringsOrDirectives) {
  const std::string source =
      "// __global__ void fake() { BLOCK }\n"
      "const char* s = \"__device__ void f() { BLOCK }\";\n"
      "#define LB __launch_bounds__(BLOCK)\n"
      "__global__ void k() { /* } */ int a[BLOCK]; }\n"
      "int host = BLOCK;\n";
  EXPECT_EQ(squeeze(host_code_view(source).text),
            "// __global__ void fake() { BLOCK }\n"
            "const char* s = \"__device__ void f() { BLOCK }\";\n"
            "#define LB __launch_bounds__(BLOCK)\n"
            "__global__ void k() { }\n"
            "int host = BLOCK;\n");
}

TEST(HostView, AnUnterminatedBodyLeavesTheRestAsItIs) {
  const std::string source = "__global__ void k() { int a[BLOCK];\nint host = BLOCK;\n";
  EXPECT_EQ(host_code_view(source).text, source);
}

TEST(HostView, SetsDerivedConstantsApartAndBlanksDeclarationScopeStaticAsserts) {
  const std::string source =
      "namespace detail {\n"
      "constexpr int kBlock = BLOCK;\n"
      "constexpr int kRows = kBlock / 32, kFixed = 4;\n"
      "static_assert(kBlock % 32 == 0,\n"
      "              \"BLOCK must be a multiple of 32\");\n"
      "struct Config { static constexpr int kThreads{BLOCK}; };\n"
      "__constant__ float weights[kBlock];\n"
      "}  // namespace detail\n"
      "using Cfg = Tile<BLOCK, 4>;\n"
      "void launch() {\n"
      "  constexpr int here = BLOCK;\n"
      "  dim3 block(detail::kBlock);\n"
      "}\n";
  const HostCodeView view = host_code_view(source, {"BLOCK"});
  EXPECT_EQ(lines(view.text), lines(source));
  const std::string lowest =
      "(::kernelevo_params::BLOCK_for(::kernelevo_params::lowest_built_arch()))";
  const std::string deprecated = "[[deprecated(\"kernelevo: derived from BLOCK\")]]";
  EXPECT_EQ(squeeze(view.text), "namespace detail {\n" + deprecated +
                                    " constexpr int kBlock = " + lowest + ";\n" + deprecated +
                                    " constexpr int kRows = kBlock / 32, kFixed = 4;\n"
                                    "\n"
                                    ";\n"
                                    "struct Config { " +
                                    deprecated + " static constexpr int kThreads{" + lowest +
                                    "}; };\n"
                                    "__constant__ float weights[1];\n"
                                    "} // namespace detail\n"
                                    "using Cfg " +
                                    deprecated + " = Tile<" + lowest +
                                    ", 4>;\n"
                                    "void launch() {\n"
                                    " constexpr int here = BLOCK;\n"
                                    " dim3 block(detail::kBlock);\n"
                                    "}\n");
  ASSERT_EQ(view.derived.size(), 4u);
  EXPECT_EQ(view.derived[0].name, "kBlock");
  EXPECT_EQ(view.derived[0].line, 2);
  EXPECT_EQ(view.derived[1].name, "kRows");
  EXPECT_EQ(view.derived[1].parameter, "BLOCK");
  EXPECT_EQ(view.derived[2].name, "kThreads");
  EXPECT_EQ(view.derived[2].line, 6);
  EXPECT_EQ(view.derived[3].name, "Cfg");
}

TEST(HostView, WithoutWatchedParametersDeclarationsStayButStaticAssertsGo) {
  const std::string source = "constexpr int kBlock = BLOCK;\nstatic_assert(kBlock > 0);\n";
  const HostCodeView view = host_code_view(source);
  EXPECT_EQ(squeeze(view.text), "constexpr int kBlock = BLOCK;\n;\n");
  EXPECT_TRUE(view.derived.empty());
}

}  // namespace
}  // namespace kev
