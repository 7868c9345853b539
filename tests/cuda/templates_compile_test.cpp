// The shipped templates compile with NVRTC and with nvcc, for sm_90 and sm_80, at the
// source defaults and at a spread of points of their spaces (corners and middles).
// scripts/check_templates.sh compiles every point.
#include <future>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compile_test_support.h"
#include "cuda/compile_pool.h"
#include "cuda/cubin.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"

namespace kev::cuda {
namespace {

struct Template {
  std::string file;
  std::string prefix;  // parameter prefix: SOFTMAX, RMSNORM
  std::string kernel;
  std::string reference;
};

void PrintTo(const Template& t, std::ostream* os) { *os << t.file; }

// BLOCK, ROW_THREADS, VEC, UNROLL: the corners and a few middles of the space.
const std::vector<std::vector<int>> kPoints = {
    {64, 32, 1, 1}, {1024, 1024, 4, 8}, {256, 32, 2, 16}, {512, 128, 4, 4}, {1024, 32, 1, 16}};

CompileRequest request_for(const Template& t, const std::vector<int>& point, const std::string& arch) {
  CompileRequest r;
  r.source_path = testing::source_dir_file(t.file);
  r.kernel_names = {t.kernel, t.reference};
  r.arch = arch;
  if (!point.empty()) {
    const char* names[] = {"_BLOCK", "_ROW_THREADS", "_VEC", "_UNROLL"};
    for (std::size_t i = 0; i < point.size(); ++i) {
      r.defines.emplace_back(t.prefix + names[i], std::to_string(point[i]));
    }
  }
  return r;
}

std::string describe(const CompileRequest& r) {
  std::string s = r.source_path + " " + r.arch;
  for (const auto& [n, v] : r.defines) s += " -D" + n + "=" + v;
  return s;
}

class TemplatesCompile : public ::testing::TestWithParam<Template> {};

TEST_P(TemplatesCompile, AtSampledPointsWithNvrtcAndNvcc) {
  const Template& t = GetParam();
  NvrtcCompiler nvrtc;
  NvccCompiler nvcc;
  CompilePool nvrtc_pool(nvrtc, 2);
  CompilePool nvcc_pool(nvcc, 2);
  std::vector<std::pair<CompileRequest, std::future<CompileOutput>>> jobs;
  auto add = [&](CompilePool& pool, CompileRequest r) {
    auto f = pool.submit(r);
    jobs.emplace_back(std::move(r), std::move(f));
  };
  add(nvrtc_pool, request_for(t, {}, "sm_90"));
  add(nvcc_pool, request_for(t, {}, "sm_80"));
  for (std::size_t i = 0; i < kPoints.size(); ++i) {
    add(nvrtc_pool, request_for(t, kPoints[i], "sm_90"));
    if (i % 2 == 0) add(nvrtc_pool, request_for(t, kPoints[i], "sm_80"));
    if (i % 2 == 1) add(nvcc_pool, request_for(t, kPoints[i], "sm_90"));
  }
  add(nvcc_pool, request_for(t, kPoints[0], "sm_80"));
  for (auto& [request, future] : jobs) {
    const auto out = future.get();
    EXPECT_TRUE(out.ok) << describe(request) << "\n" << out.log;
    if (!out.ok) continue;
    EXPECT_EQ(out.lowered_names.at(t.kernel), t.kernel);
    const auto info = read_cubin(out.image);
    ASSERT_TRUE(info.has_value());
    EXPECT_THAT(info->kernels, ::testing::IsSupersetOf({t.kernel, t.reference}));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, TemplatesCompile,
    ::testing::Values(Template{"templates/softmax.cu", "SOFTMAX", "softmax_rows", "softmax_rows_naive"},
                      Template{"templates/rmsnorm.cu", "RMSNORM", "rmsnorm_rows", "rmsnorm_rows_naive"}),
    [](const auto& test_info) { return test_info.param.prefix == "SOFTMAX" ? std::string("softmax") : std::string("rmsnorm"); });

}  // namespace
}  // namespace kev::cuda
