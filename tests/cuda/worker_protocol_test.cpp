#include "cuda/worker_protocol.h"

#include <gtest/gtest.h>

namespace kev::cuda {
namespace {

Expr parse(const std::string& text) {
  auto e = Expr::parse(text, SourceLocation{"k.cu", 7, 3});
  EXPECT_TRUE(e.ok());
  return std::move(e).value();
}

TEST(WorkerProtocol, Base64RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t len : {0u, 1u, 2u, 3u, 4u, 255u, 256u}) {
    const std::string part = bytes.substr(0, len);
    const std::string enc = base64_encode(part);
    EXPECT_EQ(enc.size() % 4, 0u);
    auto dec = base64_decode(enc);
    ASSERT_TRUE(dec.has_value());
    EXPECT_EQ(*dec, part);
  }
  EXPECT_EQ(base64_encode("Man"), "TWFu");
  EXPECT_EQ(base64_encode("Ma"), "TWE=");
  EXPECT_FALSE(base64_decode("TW=u").has_value());
  EXPECT_FALSE(base64_decode("abc").has_value());
}

TEST(WorkerProtocol, RunRequestRoundTrips) {
  WorkerRequest w;
  w.op = WorkerRequest::Op::run;
  RunRequest& r = w.run;
  r.spec.id = "softmax_rows";
  r.spec.kernel = "softmax_rows";
  r.spec.source = "templates/softmax.cu";
  ArgSpec x;
  x.name = "x";
  x.pointer = true;
  x.is_const = true;
  x.count = parse("rows*cols");
  ArgSpec eps;
  eps.name = "eps";
  eps.type = ScalarType::f32;
  eps.float_value = 1e-5;
  ArgSpec map;
  map.name = "map_x";
  map.tensor_map = TensorMapSpec{"x",
                                 {parse("cols"), parse("rows")},
                                 {parse("64"), parse("BLOCK")},
                                 128,
                                 SourceLocation{"k.cu", 9, 4}};
  r.spec.args = {x, eps, map};
  r.spec.launch.grid = {parse("rows")};
  r.spec.launch.block = {parse("BLOCK")};
  r.spec.launch.cluster = parse("2");
  r.spec.metric_bytes = parse("8*rows*cols");
  Problem p;
  p.dims = {{"rows", 4096}, {"cols", 8192}};
  r.spec.problems = {p};
  r.params = {{"BLOCK", Value(256)}, {"NAME", Value(std::string("float4"))}, {"F", Value(0.5)}};
  r.candidate = {std::string("\x7f"
                             "ELF\0\1\2",
                             7),
                 "softmax_rows"};
  r.candidate.launch.block_threads = 128;
  r.candidate.launch.shared_bytes = 512;
  r.candidate.launch.trailing_null_pointers = 2;
  r.candidate.launch.cluster_ctas = 4;
  r.reference = {"ref-image", "softmax_naive"};
  r.timing.incumbent_us = 70.5;
  r.timing.seed = 42;
  r.timing.timing_sets = 3;
  r.timing.timing_set_budget_bytes = std::int64_t{5} << 30;
  r.timing.verify_every_launch_below_ratio = 0.25;
  r.timing.charge_writeback = true;  // not the default
  r.timing.dirty_l2 = true;          // nor this
  w.copy_gbps = 4300.0;

  auto back = decode_request(encode_request(w));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  const RunRequest& b = back->run;
  EXPECT_EQ(back->op, WorkerRequest::Op::run);
  EXPECT_EQ(b.spec.id, "softmax_rows");
  ASSERT_EQ(b.spec.args.size(), 3u);
  ASSERT_TRUE(b.spec.args[2].tensor_map.has_value());
  const TensorMapSpec& tm = *b.spec.args[2].tensor_map;
  EXPECT_EQ(tm.of, "x");
  ASSERT_EQ(tm.dims.size(), 2u);
  EXPECT_EQ(tm.dims[1].text(), "rows");
  EXPECT_EQ(tm.box[1].text(), "BLOCK");
  EXPECT_EQ(tm.swizzle, 128);
  EXPECT_EQ(tm.where.line, 9);
  EXPECT_FALSE(b.spec.args[0].tensor_map.has_value());
  ASSERT_TRUE(b.spec.launch.cluster.has_value());
  EXPECT_EQ(b.spec.launch.cluster->text(), "2");
  EXPECT_EQ(b.spec.args[0].count->text(), "rows*cols");
  EXPECT_EQ(b.spec.args[0].count->origin().line, 7);
  EXPECT_TRUE(b.spec.args[0].is_const);
  EXPECT_DOUBLE_EQ(b.spec.args[1].float_value.value_or(0), 1e-5);
  EXPECT_EQ(b.spec.launch.block[0].text(), "BLOCK");
  EXPECT_EQ(b.spec.metric_bytes->text(), "8*rows*cols");
  EXPECT_EQ(b.spec.problems[0].dims.at("cols"), 8192);
  EXPECT_EQ(b.params, r.params);
  EXPECT_EQ(b.candidate.image, r.candidate.image);
  EXPECT_EQ(b.candidate.launch.block_threads, 128u);
  EXPECT_EQ(b.candidate.launch.shared_bytes, 512u);
  EXPECT_EQ(b.candidate.launch.trailing_null_pointers, 2u);
  EXPECT_EQ(b.candidate.launch.cluster_ctas, 4u);
  EXPECT_TRUE(b.reference.launch.empty());
  EXPECT_EQ(b.reference.function, "softmax_naive");
  EXPECT_DOUBLE_EQ(b.timing.incumbent_us, 70.5);
  EXPECT_EQ(b.timing.seed, 42u);
  EXPECT_EQ(b.timing.timing_sets, 3);
  EXPECT_EQ(b.timing.timing_set_budget_bytes, std::int64_t{5} << 30);
  EXPECT_DOUBLE_EQ(b.timing.verify_every_launch_below_ratio, 0.25);
  EXPECT_TRUE(b.timing.charge_writeback);
  EXPECT_TRUE(b.timing.dirty_l2);
  EXPECT_DOUBLE_EQ(back->copy_gbps, 4300.0);
}

TEST(WorkerProtocol, ResponseRoundTripsAndErrorsCarryTheirCode) {
  WorkerResponse resp;
  resp.device.name = "NVIDIA H200";
  resp.device.arch = "sm_90";
  resp.device.copy_gbps = 4270.5;
  resp.report.outcome.disposition = Disposition::incorrect;
  resp.report.outcome.detail = "3 of 10 elements wrong";
  ProblemResult pr;
  pr.problem = "n=10";
  pr.disposition = Disposition::incorrect;
  pr.time_us = 3.5;
  resp.report.problems = {pr};
  resp.report.context_lost = true;
  resp.report.outcome.resources = KernelResources{72, 49152, 16};
  auto back = decode_response(encode_response(resp));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->report.outcome.resources, (KernelResources{72, 49152, 16}));
  EXPECT_EQ(back->device.name, "NVIDIA H200");
  EXPECT_EQ(back->report.outcome.disposition, Disposition::incorrect);
  EXPECT_EQ(back->report.problems.at(0).time_us.value_or(0), 3.5);
  EXPECT_FALSE(back->report.problems.at(0).gbps.has_value());
  EXPECT_TRUE(back->report.context_lost);

  WorkerResponse err;
  err.ok = false;
  err.error = make_error("no CUDA GPU found", {}, ExitCode::environment);
  auto eback = decode_response(encode_response(err));
  ASSERT_TRUE(eback.ok());
  EXPECT_FALSE(eback->ok);
  EXPECT_EQ(eback->error.code, ExitCode::environment);
}

TEST(WorkerProtocol, GarbageAndOtherVersionsAreErrors) {
  EXPECT_FALSE(decode_request("not json").ok());
  EXPECT_FALSE(decode_request(R"({"version":99,"op":"device"})").ok());
  EXPECT_FALSE(decode_request(R"({"version":1,"op":"dance"})").ok());
  EXPECT_FALSE(decode_response(R"({"version":1})").ok());
}

}  // namespace
}  // namespace kev::cuda
