#pragma once
// Shared by the GPU tests: skip without a GPU, compile test kernels with NVRTC, and build a
// small elementwise spec in code.
#include <gtest/gtest.h>

#include <string>

#include "core/runner.h"
#include "core/spec.h"
#include "cuda/driver_runner.h"
#include "cuda/nvrtc_compiler.h"

namespace kev::gpu_test {

// Empty when a GPU is usable, else why not.
inline std::string gpu_unavailable_reason() {
  static const std::string why = [] {
    auto r = cuda::DriverRunner::open(0);
    return r ? std::string() : r.error().message;
  }();
  return why;
}

#define KEV_REQUIRE_GPU()                                                                \
  do {                                                                                   \
    if (const std::string why = ::kev::gpu_test::gpu_unavailable_reason(); !why.empty()) \
      GTEST_SKIP() << "no GPU: " << why;                                                 \
  } while (0)

inline Expr expr(const std::string& text) {
  auto e = Expr::parse(text, SourceLocation{"test", 1, 1});
  EXPECT_TRUE(e.ok()) << text;
  return e.ok() ? std::move(e).value() : Expr();
}

// A pointer argument of `count` elements: an input (const) or, with `output`, an output.
inline ArgSpec buffer_arg(const std::string& name, ScalarType type, const std::string& count,
                          bool output = false) {
  ArgSpec a;
  a.name = name;
  a.type = type;
  a.pointer = true;
  a.is_const = !output;
  a.output = output;
  a.count = expr(count);
  return a;
}

// An int argument whose value is the expression `value`.
inline ArgSpec int_arg(const std::string& name, const std::string& value) {
  ArgSpec a;
  a.name = name;
  a.type = ScalarType::i32;
  a.value_expr = expr(value);
  return a;
}

// y[i] = 2 * x[i] + 1 over n floats; problems n = 1<<22 (timed) and validate n = 1000.
inline KernelSpec elementwise_spec() {
  KernelSpec s;
  s.id = "affine";
  s.kernel = "affine";
  s.source = "affine.cu";
  ArgSpec x = buffer_arg("x", ScalarType::f32, "n");
  x.init = InitKind::normal;
  s.args = {x, buffer_arg("y", ScalarType::f32, "n", true), int_arg("n", "n")};
  s.launch.grid = {expr("ceil_div(n, 256)")};
  s.launch.block = {expr("256")};
  s.tolerance = {1e-5, 1e-6};
  s.metric_bytes = expr("8 * n");
  Problem big;
  big.dims["n"] = 1 << 22;
  Problem odd;
  odd.dims["n"] = 1000;
  s.problems = {big};
  s.validate = {odd};
  return s;
}

inline KernelImage compile_kernel(const std::string& source, const std::string& name,
                                  const std::string& arch = "sm_90") {
  cuda::NvrtcCompiler compiler;
  CompileRequest req;
  req.source_path = name + ".cu";
  req.source_text = source;
  req.kernel_names = {name};
  req.arch = arch;
  CompileOutput out = compiler.compile(req);
  EXPECT_TRUE(out.ok) << out.log;
  KernelImage image;
  image.image = out.image;
  auto it = out.lowered_names.find(name);
  image.function = it != out.lowered_names.end() ? it->second : name;
  return image;
}

// Timing for the tests that compare how one launch is timed: every launch alone (no
// batching), 50 ms of samples at least, 20 s at most.
inline TimingOptions timed_alone() {
  TimingOptions t;
  t.timeout_seconds = 20.0;
  t.min_seconds = 0.05;
  t.batch_below_us = 0.0;
  return t;
}

// The device's arch ("sm_90"), for compiling test kernels.
inline std::string device_arch() {
  auto r = cuda::DriverRunner::open(0);
  if (!r) return "sm_90";
  auto info = (*r)->device_info();
  return info ? info->arch : "sm_90";
}

}  // namespace kev::gpu_test
