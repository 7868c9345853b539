// Every shipped template (templates/*.cu) compiles with NVRTC and with nvcc, for sm_90 and
// sm_80, at its source defaults and at points spread over its space, read from its own
// spec: a template added to templates/ is covered without touching this file.
// scripts/check_templates.sh compiles every point.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include "compile_test_support.h"
#include "core/spec_space.h"
#include "cuda/compile_pool.h"
#include "cuda/compile_request.h"
#include "cuda/cubin.h"
#include "cuda/files.h"
#include "cuda/nvcc_compiler.h"
#include "cuda/nvrtc_compiler.h"
#include "io/spec_loader.h"
#include "support/space_points.h"

namespace kev::cuda {
namespace {

std::vector<std::string> shipped_templates() {
  std::vector<std::string> names;
  const auto dir = std::filesystem::path(testing::source_dir_file("templates"));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".cu") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string describe(const CompileRequest& r) {
  std::string s = r.source_path + " " + r.arch;
  for (const auto& [n, v] : r.defines) s += " -D" + n + "=" + v;
  return s;
}

class TemplatesCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(TemplatesCompile, AtTheDefaultsAndSpreadPointsWithNvrtcAndNvcc) {
  const std::string path = testing::source_dir_file("templates/" + GetParam() + ".cu");
  const SpecLoad load = load_specs({path});
  ASSERT_TRUE(load.errors.empty()) << load.errors.front().to_string();
  ASSERT_FALSE(load.specs.empty()) << path << " holds no marked kernel";
  const auto text = read_whole_file(path);
  ASSERT_TRUE(text.has_value());

  NvrtcCompiler nvrtc;
  NvccCompiler nvcc;
  CompilePool nvrtc_pool(nvrtc, 2);
  CompilePool nvcc_pool(nvcc, 2);
  struct Job {
    CompileRequest request;
    std::future<CompileOutput> output;
    const KernelSpec* spec;
  };
  std::vector<Job> jobs;
  auto add = [&](CompilePool& pool, const KernelSpec& spec, const ParamSet& params,
                 const char* arch) {
    auto request = compile_request_for(spec, *text, params, arch, true);
    auto output = pool.submit(request);
    jobs.push_back({std::move(request), std::move(output), &spec});
  };
  for (const auto& spec : load.specs) {
    SpecSpace space(spec, spec.problems);
    ASSERT_GT(space.size(), 1u) << spec.id << ": a template's space offers choices";
    // A spec naming its architecture (sm_90a) is compiled for it whatever is asked: its
    // sm_80 requests would repeat the sm_90 ones, and these kernels take long to compile.
    const bool one_arch = !spec.arch.empty();
    add(nvrtc_pool, spec, {}, "sm_90");
    add(nvcc_pool, spec, {}, "sm_80");
    // A file's later specs mostly instantiate its first one's code for another type or
    // epilogue, so they get fewer spread points: the slowest templates hold four specs.
    const std::size_t spread = &spec == &load.specs.front() ? 6 : 1;
    const auto points = test_support::spread_points(space, spread, 20261130);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const ParamSet params = space.to_params(points[i]);
      add(nvrtc_pool, spec, params, "sm_90");
      if (i % 2 == 0 && !one_arch) add(nvrtc_pool, spec, params, "sm_80");
      if (i == 1 || i == 4) add(nvcc_pool, spec, params, "sm_90");
    }
  }
  for (auto& job : jobs) {
    const auto out = job.output.get();
    EXPECT_TRUE(out.ok) << describe(job.request) << "\n" << out.log;
    if (!out.ok) continue;
    const auto info = read_cubin(out.image);
    ASSERT_TRUE(info.has_value()) << describe(job.request);
    const std::string reference = job.spec->reference.empty() || job.spec->reference == "default"
                                      ? job.spec->kernel
                                      : job.spec->reference;
    for (const auto& name : {job.spec->kernel, reference}) {
      const auto lowered = out.lowered_names.find(name);
      const std::string symbol = lowered != out.lowered_names.end() ? lowered->second : name;
      EXPECT_THAT(info->kernels, ::testing::Contains(symbol)) << describe(job.request);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, TemplatesCompile, ::testing::ValuesIn(shipped_templates()),
                         [](const auto& test_info) { return test_info.param; });

}  // namespace
}  // namespace kev::cuda
