// `kernelevo tune --replay` of a trace with buckets (a tune of a kernel with `dispatch`):
// the real binary replays each bucket's search over its own records, prints a winner per
// bucket, writes a report row per bucket and a trace whose records name their bucket.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;

// A trace of two bucket searches over B in {64, 128, 256}: cols < 2048 wants 64, the rest 256.
std::string bucketed_trace() {
  std::string t =
      R"({"format":"kernelevo-trace","version":1,"tool":"kernelevo 0.1.0","created":"2026-12-01T00:00:00Z",)"
      R"("kernel":"softmax_rows","device":"NVIDIA H200","strategy":"exhaustive","seed":1,)"
      R"("dims":[{"name":"B","values":[64,128,256]}],)"
      R"("problems":[{"cols":1024,"rows":8},{"cols":8192,"rows":8}],)"
      R"("dispatch":{"by":"cols","buckets":[[0,2048],[2048,null]]}})"
      "\n";
  const auto record = [](int b, double us, int bucket) {
    return R"({"params":{"B":)" + std::to_string(b) + R"(},"disposition":"passed","time_us":)" +
           std::to_string(us) +
           R"(,"ci_us":null,"samples_us":[],"detail":"","elapsed_s":0.1,"bucket":)" +
           std::to_string(bucket) + "}\n";
  };
  t += record(64, 5.0, 0) + record(128, 7.0, 0) + record(256, 9.0, 0);
  t += record(64, 90.0, 1) + record(128, 80.0, 1) + record(256, 70.0, 1);
  return t;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class TuneBucketsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path();
    std::ofstream(dir_ / "trace.jsonl") << bucketed_trace();
  }
  const kev::test_support::TempDir tmp_;
  fs::path dir_;
};

TEST_F(TuneBucketsCli, ReplaysEachBucketsSearch) {
  const auto run = kev::test_support::run_kernelevo(
      "tune --replay trace.jsonl --strategy exhaustive --format json --trace out.jsonl "
      "--report report",
      dir_);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j.at("buckets").size(), 2u);
  EXPECT_EQ(j["buckets"][0]["bucket"], "cols [0, 2048)");
  EXPECT_EQ(j["buckets"][0]["best"]["params"]["B"], 64);
  EXPECT_EQ(j["buckets"][0]["evaluations"], 3);
  EXPECT_EQ(j["buckets"][1]["bucket"], "cols [2048, inf)");
  EXPECT_EQ(j["buckets"][1]["best"]["params"]["B"], 256);
  EXPECT_EQ(j["buckets"][1]["best"]["time_us"], 70.0);

  // The new trace keeps the buckets, and replays the same way.
  const std::string out = read_text(dir_ / "out.jsonl");
  EXPECT_NE(out.find(R"("dispatch":{"by":"cols","buckets":[[0,2048],[2048,null]]})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("bucket":1)"), std::string::npos) << out;
  const auto again = kev::test_support::run_kernelevo(
      "tune --replay out.jsonl --strategy exhaustive --format json", dir_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto replayed = nlohmann::json::parse(again.out)["buckets"];
  ASSERT_EQ(replayed.size(), 2u);
  for (std::size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(replayed[b]["bucket"], j["buckets"][b]["bucket"]);
    EXPECT_EQ(replayed[b]["best"], j["buckets"][b]["best"]);
  }

  // A report row per bucket, the bucket in the kernel column.
  const std::string md = read_text(dir_ / "report/report.md");
  EXPECT_NE(md.find("softmax_rows cols [0, 2048)"), std::string::npos) << md;
  EXPECT_NE(md.find("softmax_rows cols [2048, inf)"), std::string::npos) << md;
  const auto report = nlohmann::json::parse(read_text(dir_ / "report/report.json"));
  ASSERT_EQ(report.at("kernels").size(), 2u);
  EXPECT_EQ(report["kernels"][1]["bucket"], "cols [2048, inf)");
}

// A replayed bucket's search starts from the nearest replayed bucket's winner, as tune's does:
// with two evaluations a bucket, bucket 0 finds B = 128 (of 64 and 128), and bucket 1's first
// evaluation is that, before the exhaustive order's 64.
TEST_F(TuneBucketsCli, ABucketsReplayStartsFromTheNearestBucketsWinner) {
  std::string t = bucketed_trace();
  const auto at = t.find(R"({"params":{"B":128},"disposition":"passed","time_us":7.0)");
  ASSERT_NE(at, std::string::npos);
  t.replace(t.find("\"time_us\":5.0"), 13, "\"time_us\":9.0");  // bucket 0: 64 slower than 128
  std::ofstream(dir_ / "seeded.jsonl") << t;
  const auto run = kev::test_support::run_kernelevo(
      "tune --replay seeded.jsonl --strategy exhaustive --budget 2 --format json --trace "
      "out.jsonl",
      dir_);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["buckets"][0]["best"]["params"]["B"], 128);
  std::ifstream out(dir_ / "out.jsonl");
  std::vector<int> bucket1;
  for (std::string line; std::getline(out, line);) {
    const auto r = nlohmann::json::parse(line);
    if (r.contains("bucket") && r["bucket"] == 1) bucket1.push_back(r["params"]["B"]);
  }
  EXPECT_EQ(bucket1, (std::vector<int>{128, 64}));
}

TEST_F(TuneBucketsCli, TextNamesEachBucket) {
  const auto run =
      kev::test_support::run_kernelevo("tune --replay trace.jsonl --strategy exhaustive", dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("(softmax_rows cols [0, 2048) on NVIDIA H200)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("best: 70.0 us  B=256"), std::string::npos) << run.out;
}

TEST_F(TuneBucketsCli, ABrokenDispatchHeaderIsRefused) {
  std::string t = bucketed_trace();
  t.replace(t.find("[[0,2048],[2048,null]]"), 22, "[[0,4096],[2048,null]]");
  std::ofstream(dir_ / "bad.jsonl") << t;
  const auto run = kev::test_support::run_kernelevo("tune --replay bad.jsonl", dir_);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("bad.jsonl:1:1: error: trace header: dispatch: bucket 1 [2048, inf) "
                         "overlaps bucket 0 [0, 4096)"),
            std::string::npos)
      << run.err;
}

}  // namespace

namespace {

// `kernelevo show` of a lockfile with buckets: a row per bucket, the bucket after the kernel.
TEST(ShowBucketsCli, PrintsARowPerBucket) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir);
  std::ofstream(dir / "kernelevo.lock.json")
      << R"({"schema_version": 3, "kernels": {"k": {"source": "src/k.cu", "source_hash": "sha256:)"
      << std::string(64, 'c')
      << R"(", "targets": {"sm_90": {"G": {"by": "cols", "tuned_with": "t", "buckets": [)"
      << R"({"params": {"B": 64}, "range": [0, 2048], "time_us": 5.0, "baseline_us": 10.0},)"
      << R"({"params": {"B": 256}, "range": [2048, null], "time_us": 70.0}]}}}}}})";
  const auto text = kev::test_support::run_kernelevo("show", dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(
                "k cols [0, 2048)    sm_90  G       B=64       5.00         10.0    2.00x  t\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find(
                "k cols [2048, inf)  sm_90  G       B=256      70.0            -        -  t\n"),
            std::string::npos)
      << text.out;
  const auto json = kev::test_support::run_kernelevo("show --format json", dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.at("entries").size(), 2u);
  EXPECT_EQ(j["entries"][1]["bucket"], "cols [2048, inf)");
  EXPECT_EQ(j["entries"][1]["params"]["B"], 256);
  EXPECT_FALSE(j["entries"][1].contains("sized"));
}

// A bucket tune locked without its size define says so in both forms.
TEST(ShowBucketsCli, SaysWhichBucketsAreBuiltWithoutTheirSizeDefine) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  fs::create_directories(dir);
  std::ofstream(dir / "kernelevo.lock.json")
      << R"({"schema_version": 4, "kernels": {"k": {"source": "src/k.cu", "source_hash": "sha256:)"
      << std::string(64, 'c')
      << R"(", "targets": {"sm_90": {"G": {"by": "cols", "tuned_with": "t", "buckets": [)"
      << R"({"params": {"B": 64}, "range": [1024, 1025], "sized": false, "time_us": 5.0},)"
      << R"({"params": {"B": 256}, "range": [2048, 2049], "time_us": 70.0}]}}}}}})";
  const auto text = kev::test_support::run_kernelevo("show", dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("k cols [1024, 1025)  sm_90  G       B=64 (without KERNELEVO_SIZE_cols)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("k cols [2048, 2049)  sm_90  G       B=256  "), std::string::npos)
      << text.out;
  const auto json = kev::test_support::run_kernelevo("show --format json", dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.at("entries").size(), 2u);
  EXPECT_EQ(j["entries"][0]["sized"], false);
  EXPECT_FALSE(j["entries"][1].contains("sized"));
}

}  // namespace
