#include "io/trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/recorded_space.h"
#include "core/timing_names.h"
#include "io/replay_reader.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    header_.kernel = "softmax";
    header_.device = "Test GPU";
    header_.strategy = "auto";
    header_.seed = 3;
    header_.dims = {{"BLOCK", {128, 256}},
                    {"VEC", {1, 2}},
                    {"MODE", {std::string("fast"), std::string("safe")}}};
    Problem problem;
    problem.dims = {{"rows", 4}, {"cols", 8}};
    header_.problems = {problem};
  }
  static io::TraceRecord record(int block, int vec, const char* mode, std::optional<double> t) {
    io::TraceRecord r;
    r.params = {{"BLOCK", block}, {"VEC", vec}, {"MODE", std::string(mode)}};
    r.outcome.disposition = t ? Disposition::passed : Disposition::compile_failed;
    r.outcome.time_us = t;
    if (t) {
      r.outcome.ci_low_us = *t > 1 ? *t - 1 : *t / 2;  // a time a run takes: above zero
      r.outcome.ci_high_us = *t + 1;
      r.outcome.samples_us = {*t, *t + 0.5};
    } else {
      r.outcome.detail = "error: \"x\" undefined\n";
    }
    r.elapsed_s = 1.5;
    return r;
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }

  const kev::test_support::TempDir tmp_;
  std::filesystem::path dir_;
  io::TraceHeader header_;
};

TEST_F(TraceTest, WritesAndReadsBack) {
  {
    auto w = io::TraceWriter::create(path("t.jsonl"), header_);
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    ASSERT_TRUE(w->write(record(128, 1, "fast", 12.5)).ok());
    ASSERT_TRUE(w->write(record(256, 2, "safe", std::nullopt)).ok());
  }
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->header.kernel, "softmax");
  EXPECT_EQ(trace->header.seed, 3u);
  EXPECT_EQ(trace->header.timing, "cold-l2");  // not written: a header that says nothing
  EXPECT_EQ(trace->header.dims.size(), 3u);
  EXPECT_EQ(trace->header.dims[2].values[1], Value(std::string("safe")));
  ASSERT_EQ(trace->header.problems.size(), 1u);
  EXPECT_EQ(trace->header.problems[0].dims.at("cols"), 8);
  ASSERT_EQ(trace->records.size(), 2u);
  EXPECT_FALSE(trace->truncated);
  const auto& r0 = trace->records[0];
  EXPECT_EQ(r0.params.at("BLOCK"), Value(128));
  EXPECT_DOUBLE_EQ(*r0.outcome.time_us, 12.5);
  EXPECT_DOUBLE_EQ(*r0.outcome.ci_high_us, 13.5);
  EXPECT_EQ(r0.outcome.samples_us.size(), 2u);
  EXPECT_DOUBLE_EQ(r0.elapsed_s, 1.5);
  EXPECT_EQ(trace->records[1].outcome.disposition, Disposition::compile_failed);
  EXPECT_EQ(trace->records[1].outcome.detail, "error: \"x\" undefined\n");
  // A trace is also a replay input.
  auto rec = io::read_recording(path("t.jsonl"));
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_EQ(rec->format, "kernelevo-trace");
  EXPECT_EQ(rec->points().size(), 2u);
  EXPECT_DOUBLE_EQ(*rec->optimum_us(), 12.5);
}

TEST_F(TraceTest, ToleratesATruncatedLastLineAndAppendRepairsIt) {
  {
    auto w = io::TraceWriter::create(path("t.jsonl"), header_);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->write(record(128, 1, "fast", 12.5)).ok());
  }
  const std::string partial = io::trace_record_line(record(256, 1, "fast", 9.0)).substr(0, 30);
  std::ofstream(path("t.jsonl"), std::ios::app) << partial;
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_TRUE(trace->truncated);
  EXPECT_EQ(trace->records.size(), 1u);
  {
    auto w = io::TraceWriter::append(path("t.jsonl"));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(w->write(record(256, 2, "fast", 8.0)).ok());
  }
  trace = io::read_trace(path("t.jsonl"));
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_FALSE(trace->truncated);
  ASSERT_EQ(trace->records.size(), 2u);
  EXPECT_DOUBLE_EQ(*trace->records[1].outcome.time_us, 8.0);
}

TEST_F(TraceTest, AnInvalidLineInTheMiddleIsAnErrorWithItsLine) {
  std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n{oops\n"
                                 << io::trace_record_line(record(128, 1, "fast", 1.0)) << "\n";
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().where.line, 2);
  EXPECT_EQ(trace.error().where.file, path("t.jsonl"));
}

TEST_F(TraceTest, JsonErrorsNameLineAndColumnAndADuplicateKeyIsNoCutLine) {
  const std::string good = io::trace_record_line(record(128, 1, "fast", 1.0));
  std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n"
                                 << good << "\n  {\"params\": tru}\n"
                                 << good << "\n";
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().to_string().rfind(path("t.jsonl") + ":3:17: error: not valid JSON: ", 0),
            0u)
      << trace.error().to_string();
  // A last line with a duplicate key is valid JSON, not a line cut short by a killed writer.
  std::ofstream(path("d.jsonl")) << io::trace_header_line(header_) << "\n"
                                 << good << "\n"
                                 << R"({"params": {}, "params": {"BLOCK": 256}})"
                                 << "\n";
  trace = io::read_trace(path("d.jsonl"));
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().to_string(), path("d.jsonl") + ":3:16: error: duplicate key 'params'");
}

// A negative or infinite time read back would pass any gate (time_us: -5 gave FASTER; 1e308
// gave an infinite ratio, a NaN interval and UNSURE); so would zero.
TEST_F(TraceTest, TimesNoRunTakesAreErrorsWithTheirLine) {
  const std::string good = io::trace_record_line(record(128, 1, "fast", 10.0));
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"\"time_us\":10.0", "\"time_us\":-5",
       "time_us is -5; times must be from 0.001 to 1e10 microseconds"},
      {"\"ci_us\":[9.0,11.0]", "\"ci_us\":[-9.0,11.0]", "ci_us[0] is -9"},
      {"\"samples_us\":[10.0,10.5]", "\"samples_us\":[10.0,-0.5]", "samples_us[1] is -0.5"},
      {"\"time_us\":10.0", "\"time_us\":1e308",
       "time_us is 1e+308; times must be from 0.001 to 1e10 microseconds"},
      {"\"time_us\":10.0", "\"time_us\":0", "time_us is 0"},
      {"\"samples_us\":[10.0,10.5]", "\"samples_us\":[10.0,1e-9]", "samples_us[1] is 1e-09"},
      {"\"ci_us\":[9.0,11.0]", "\"ci_us\":[9.0,2e10]", "ci_us[1] is 2e+10"},
      // JSON has no infinity; a number too large for a double is not valid JSON here.
      {"\"time_us\":10.0", "\"time_us\":1e999", "JSON"}};
  for (const auto& c : cases) {
    std::string bad = good;
    const auto at = bad.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from << " not in " << good;
    bad.replace(at, c.from.size(), c.to);
    std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n"
                                   << good << "\n"
                                   << bad << "\n";
    auto trace = io::read_trace(path("t.jsonl"));
    ASSERT_FALSE(trace.ok()) << c.to;
    EXPECT_EQ(trace.error().where.file, path("t.jsonl"));
    EXPECT_EQ(trace.error().where.line, 3) << c.to;
    EXPECT_NE(trace.error().message.find(c.message), std::string::npos) << trace.error().message;
    EXPECT_EQ(trace.error().code, ExitCode::usage);
  }
}

// What the driver reported of the compiled kernel travels with the record (objectives), and a
// record whose resources are not counts a GPU can have is refused with its line.
TEST_F(TraceTest, ResourcesRoundTripAndHostileOnesAreRefused) {
  io::TraceRecord lean = record(128, 1, "fast", 10.0);
  lean.outcome.resources = KernelResources{40, 4096, 0};
  const std::string line = io::trace_record_line(lean);
  EXPECT_NE(line.find(R"("resources":{"registers":40,"shared_bytes":4096,"local_bytes":0})"),
            std::string::npos)
      << line;
  std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n" << line << "\n";
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->records.at(0).outcome.resources, (KernelResources{40, 4096, 0}));
  for (const std::string bad :
       {R"("resources":{"local_bytes":0,"registers":-1,"shared_bytes":4096})",
        R"("resources":{"local_bytes":0,"registers":40.5,"shared_bytes":4096})",
        R"("resources":{"local_bytes":0,"registers":40,"shared_bytes":99999999999})",
        R"("resources":{"registers":40,"shared_bytes":4096})", R"("resources":[40,4096,0])",
        R"("resources":{"local_bytes":0,"registers":40,"shared_bytes":4096,"x":1})"}) {
    std::string text = line;
    const auto at = text.find("\"resources\"");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, text.find('}', at) + 1 - at, bad);
    std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n" << text << "\n";
    auto refused = io::read_trace(path("t.jsonl"));
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().where.line, 2) << bad;
    EXPECT_NE(refused.error().message.find("resources"), std::string::npos)
        << refused.error().message;
  }
}

TEST_F(TraceTest, RejectsOtherVersionsAndFormats) {
  std::ofstream(path("v2.jsonl")) << R"({"format":"kernelevo-trace","version":2,"dims":[]})"
                                  << "\n";
  auto trace = io::read_trace(path("v2.jsonl"));
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("unsupported trace version"), std::string::npos);
  std::ofstream(path("other.jsonl")) << R"({"hello":1})"
                                     << "\n";
  EXPECT_FALSE(io::read_trace(path("other.jsonl")).ok());
}

// Found by fuzz.replay: a field of the wrong JSON type ended the process (an uncaught
// type_error), and a huge number read as an integer was undefined behaviour. Each is now an
// error naming the file and line.
TEST_F(TraceTest, FieldsOfTheWrongTypeAreErrorsWithTheirLine) {
  using nlohmann::json;
  const json header = json::parse(io::trace_header_line(header_));
  const json good = json::parse(io::trace_record_line(record(128, 1, "fast", 1.0)));
  const auto with = [](json j, const char* key, json value) {
    j[key] = std::move(value);
    return j.dump();
  };
  const std::vector<std::pair<std::string, int>> cases = {
      {with(header, "kernel", 5), 1},
      {with(header, "device", json::array({1})), 1},
      {with(header, "timing", json::object()), 1},
      {with(header, "compiler", 7), 1},
      {with(header, "flush", "3"), 1},
      {with(header, "flush", 0), 1},
      {with(header, "flush", -3), 1},
      {with(header, "flush", 1e300), 1},
      {with(header, "compiler", "clang\n::error::x"), 1},
      {with(header, "seed", 3.5e84), 1},
      {with(header, "seed", -1), 1},
      {with(header, "version", 1e300), 1},
      {with(header, "dims", json::array({json::object({{"name", json::array({1})}})})), 1},
      {with(header, "dims", json::array({7})), 1},
      {header.dump() + "\n" + with(good, "disposition", 5), 2},
      {header.dump() + "\n" + with(good, "detail", json::object()), 2},
      {header.dump() + "\n" + with(good, "elapsed_s", "x"), 2},
  };
  for (const auto& [text, line] : cases) {
    const auto trace = io::parse_trace(text + "\n", "t.jsonl");
    ASSERT_FALSE(trace.ok()) << text;
    EXPECT_EQ(trace.error().where.file, "t.jsonl") << text;
    EXPECT_EQ(trace.error().where.line, line) << text;
  }
}

// Which L2 flush came before the timed launches: written when known, read back; a header that
// does not say was written before traces said, after the flush of revision 2.
TEST_F(TraceTest, TheHeaderSaysWhichFlushCameBeforeTheTimedLaunches) {
  io::TraceHeader h = header_;
  h.flush = kFlushRevision;
  auto trace = io::parse_trace(io::trace_header_line(h) + "\n", "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->header.flush, 3);
  EXPECT_EQ(io::trace_header_line(header_).find("flush"), std::string::npos);  // 0: not known
  trace = io::parse_trace(io::trace_header_line(header_) + "\n", "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->header.flush, 2);
}

// Which compiler made the timed code: written when known, read back, empty when the header
// does not say.
TEST_F(TraceTest, TheHeaderSaysWhichCompilerMadeTheTimedCode) {
  io::TraceHeader h = header_;
  h.compiler = "nvrtc";
  auto trace = io::parse_trace(io::trace_header_line(h) + "\n", "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->header.compiler, "nvrtc");
  trace = io::parse_trace(io::trace_header_line(header_) + "\n", "t.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.error().to_string();
  EXPECT_EQ(trace->header.compiler, "");
  EXPECT_EQ(io::trace_header_line(header_).find("compiler"), std::string::npos);
}

TEST_F(TraceTest, EvaluationsMapOntoTheSpaceOrFailClearly) {
  std::ofstream(path("t.jsonl")) << io::trace_header_line(header_) << "\n"
                                 << io::trace_record_line(record(256, 2, "safe", 3.0)) << "\n";
  auto trace = io::read_trace(path("t.jsonl"));
  ASSERT_TRUE(trace.ok());
  auto rec = io::recording_from_trace(*trace, path("t.jsonl"));
  ASSERT_TRUE(rec.ok());
  const RecordedSpace space(*rec);
  auto evals = io::trace_evaluations(*trace, space, path("t.jsonl"));
  ASSERT_TRUE(evals.ok());
  ASSERT_EQ(evals->size(), 1u);
  EXPECT_EQ(evals->front().point, (Point{1, 1, 1}));
  trace->records.push_back(record(512, 2, "safe", 3.0));  // 512 is not a BLOCK value
  evals = io::trace_evaluations(*trace, space, path("t.jsonl"));
  ASSERT_FALSE(evals.ok());
  EXPECT_NE(evals.error().message.find("BLOCK=512"), std::string::npos);
}

}  // namespace
}  // namespace kev
