#include "core/spec_source_check.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

ArgSpec arg(const std::string& name, bool pointer, int line) {
  ArgSpec a;
  a.name = name;
  a.pointer = pointer;
  a.output = pointer;
  a.where = {"spec.yaml", line, 5};
  return a;
}

KernelSpec spec_of(const std::string& kernel, std::vector<ArgSpec> args,
                   std::vector<std::string> params = {}) {
  KernelSpec s;
  s.kernel = kernel;
  s.source = "k.cu";
  s.where = {"k.cu", 2, 4};
  s.args = std::move(args);
  int line = 20;
  for (auto& p : params) s.params.push_back({p, {}, {"spec.yaml", line++, 3}});
  return s;
}

std::vector<std::string> texts(const std::vector<Error>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.to_string());
  return out;
}

// A file with host code, a template, extern "C", __launch_bounds__, attributes and default
// arguments: every kernel's parameters are told apart as written.
const char* kMixed = R"(#include <vector>
#ifndef B
#define B 128
#endif
#if !defined(ITEMS)
#define ITEMS 2
#endif
__device__ float twice(float v) { return 2 * v; }
template <int N, typename T = float>
__global__ void __launch_bounds__(N) tiled(const T* __restrict__ x, T* y,
                                           long n /* elements */, int stride = ITEMS) {
  y[0] = twice(x[0]) * n * stride;
}
extern "C" __global__ void flat(float* out, const float in[], unsigned n) { out[0] = in[n]; }
__global__ void none(void) {}
void launch(std::vector<float>& v) { tiled<B><<<1, B>>>(v.data(), v.data(), 1); }
)";

TEST(SpecSourceCheck, AcceptsKernelsInFilesWithHostCode) {
  const auto t = check_spec_against_source(
      spec_of("tiled<B>",
              {arg("x", true, 1), arg("y", true, 2), arg("n", false, 3), arg("s", false, 4)},
              {"B", "ITEMS"}),
      kMixed);
  EXPECT_EQ(texts(t.errors), std::vector<std::string>{});
  EXPECT_EQ(texts(t.warnings), std::vector<std::string>{});
  const auto f = check_spec_against_source(
      spec_of("flat", {arg("out", true, 1), arg("in", true, 2), arg("n", false, 3)}), kMixed);
  EXPECT_EQ(texts(f.errors), std::vector<std::string>{});
  EXPECT_EQ(texts(check_spec_against_source(spec_of("none", {}), kMixed).errors),
            std::vector<std::string>{});
}

TEST(SpecSourceCheck, AKernelTheSourceDoesNotDefine) {
  EXPECT_EQ(texts(check_spec_against_source(spec_of("nope", {}), kMixed).errors),
            std::vector<std::string>{"k.cu:2:4: error: kernel `nope` is not defined in k.cu (no "
                                     "__global__ function of that name with a body)"});
  EXPECT_EQ(
      texts(check_spec_against_source(spec_of("twice", {arg("v", false, 1)}), kMixed).errors),
      std::vector<std::string>{
          "k.cu:2:4: error: kernel `twice` (defined at k.cu:8) is not a __global__ function"});
}

TEST(SpecSourceCheck, ArgumentCountAndKinds) {
  EXPECT_EQ(texts(check_spec_against_source(
                      spec_of("flat", {arg("out", true, 7), arg("in", true, 8)}), kMixed)
                      .errors),
            std::vector<std::string>{"spec.yaml:7:5: error: the spec lists 2 arguments but kernel "
                                     "`flat` (k.cu:14) takes 3 parameters"});
  EXPECT_EQ(texts(check_spec_against_source(spec_of("tiled<B>",
                                                    {arg("x", true, 1), arg("y", false, 2),
                                                     arg("n", true, 3), arg("s", false, 4)},
                                                    {"B"}),
                                            kMixed)
                      .errors),
            (std::vector<std::string>{
                "spec.yaml:2:5: error: argument 'y' is a scalar but parameter 2 of kernel `tiled` "
                "(`T* y`, k.cu:9) is a pointer",
                "spec.yaml:3:5: error: argument 'n' is a pointer but parameter 3 of kernel `tiled` "
                "(`long n`, k.cu:9) is a scalar"}));
}

TEST(SpecSourceCheck, WarnsOfUnusedParametersAndMissingDefaults) {
  const char* source = R"(#define HARD 4
#ifndef UNUSED
#define UNUSED 1
#endif
#ifdef ONLY_TESTED
#endif
__global__ void k(float* y) { y[threadIdx.x] = HARD; }
)";
  const auto r = check_spec_against_source(
      spec_of("k", {arg("y", true, 1)}, {"HARD", "UNUSED", "ONLY_TESTED"}), source);
  EXPECT_EQ(texts(r.errors), std::vector<std::string>{});
  EXPECT_EQ(
      texts(r.warnings),
      (std::vector<std::string>{
          "spec.yaml:20:3: error: parameter HARD has no `#ifndef HARD` default in k.cu: add "
          "`#ifndef HARD` / `#define HARD <value>` / `#endif` so that the source builds without "
          "kernelevo and a tuned value is not redefined",
          "spec.yaml:21:3: error: parameter UNUSED is never used by k.cu: tuning it changes "
          "nothing",
          "spec.yaml:22:3: error: parameter ONLY_TESTED is never used by k.cu: tuning it changes "
          "nothing",
          "spec.yaml:22:3: error: parameter ONLY_TESTED has no `#ifndef ONLY_TESTED` default in "
          "k.cu: add `#ifndef ONLY_TESTED` / `#define ONLY_TESTED <value>` / `#endif` so that "
          "the source builds without kernelevo and a tuned value is not redefined"}));
}

}  // namespace
}  // namespace kev
