// `kernelevo tune --report DIR`: the run's reports (report.md, report.json, report.html,
// benchmark.json) written after the search, from a replay here, from the lockfile on the
// GPU path.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kev::test_support::quoted;
using kev::test_support::read_text;
using kev::test_support::run_kernelevo;

const std::string kFixtures = KERNELEVO_FIXTURES;
const std::string kSynthetic = kFixtures + "/spaces/synthetic_kt.json";
const std::string kAllFailed = kFixtures + "/spaces/all_failed_kt.json";
const char* const kReportFiles[] = {"report.md", "report.json", "report.html", "benchmark.json"};

class TuneReportCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.path(); }

  // Every report file exists and names `id` (benchmark.json only when `timed`: Google
  // Benchmark JSON leaves out kernels without a time).
  void expect_reports_name(const fs::path& reports, const std::string& id,
                           bool timed = true) const {
    for (const char* name : kReportFiles) {
      ASSERT_TRUE(fs::is_regular_file(reports / name)) << name;
      if (timed || std::string(name) != "benchmark.json") {
        EXPECT_NE(read_text(reports / name).find(id), std::string::npos) << name;
      }
    }
  }

  const kev::test_support::TempDir tmp_;
  fs::path dir_;
};

TEST_F(TuneReportCli, ReplayWritesTheFourReportsWithTheWinner) {
  const fs::path reports = dir_ / "reports" / "nested";
  const std::string trace = (dir_ / "t.jsonl").string();
  const auto run = run_kernelevo("tune --replay " + quoted(kSynthetic) +
                                     " --strategy exhaustive --format json --trace " +
                                     quoted(trace) + " --report " + quoted(reports.string()),
                                 dir_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = nlohmann::json::parse(run.out);
  const double best_us = out.at("best").at("time_us").get<double>();
  expect_reports_name(reports, "synthetic");

  const auto report = nlohmann::json::parse(read_text(reports / "report.json"));
  EXPECT_EQ(report.at("kind"), "tune");
  ASSERT_EQ(report.at("kernels").size(), 1u);
  const auto& kernel = report.at("kernels").at(0);
  EXPECT_EQ(kernel.at("id"), "synthetic");
  EXPECT_NEAR(kernel.at("time_us").get<double>(), best_us, 1e-3);
  EXPECT_EQ(kernel.at("evaluations"), 144);
  EXPECT_EQ(kernel.at("params").at("block"), out.at("best").at("params").at("block"));

  const auto gbench = nlohmann::json::parse(read_text(reports / "benchmark.json"));
  ASSERT_EQ(gbench.at("benchmarks").size(), 1u);
  const auto& bench = gbench.at("benchmarks").at(0);
  EXPECT_EQ(bench.at("name").get<std::string>().rfind("synthetic/", 0), 0u) << bench;
  EXPECT_NEAR(bench.at("real_time").get<double>(), best_us, 1e-3);
  EXPECT_EQ(bench.at("time_unit"), "us");

  // The Markdown and HTML reports show the winner's time as the text report does.
  const std::string md = read_text(reports / "report.md");
  EXPECT_NE(md.find("## kernelevo tune"), std::string::npos) << md;
  EXPECT_NE(md.find("`synthetic`"), std::string::npos) << md;
  EXPECT_NE(md.find("replayed measurements"), std::string::npos) << md;
  const std::string html = read_text(reports / "report.html");
  EXPECT_NE(html.find("Best time so far"), std::string::npos) << "the --trace chart";
}

TEST_F(TuneReportCli, ReplayWithoutAWinnerStillWritesTheReports) {
  const fs::path reports = dir_ / "reports";
  const auto run = run_kernelevo(
      "tune --replay " + quoted(kAllFailed) + " --report " + quoted(reports.string()), dir_);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  expect_reports_name(reports, "all_failed", /*timed=*/false);
  const auto report = nlohmann::json::parse(read_text(reports / "report.json"));
  ASSERT_EQ(report.at("kernels").size(), 1u);
  EXPECT_EQ(report.at("kernels").at(0).at("verdict"), "FAILED");
  EXPECT_FALSE(report.at("kernels").at(0).contains("time_us"));
  const auto gbench = nlohmann::json::parse(read_text(reports / "benchmark.json"));
  EXPECT_TRUE(gbench.at("benchmarks").empty()) << gbench;
}

TEST_F(TuneReportCli, AReportDirectoryThatCannotBeMadeIsAnErrorNamingIt) {
  const fs::path blocker = dir_ / "a-file";
  kev::test_support::write_text(blocker, "not a directory");
  const fs::path reports = blocker / "reports";
  const auto run = run_kernelevo(
      "tune --replay " + quoted(kSynthetic) + " --report " + quoted(reports.string()), dir_);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find(reports.string()), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << "failed before tuning: " << run.out;
}

TEST_F(TuneReportCli, GpuPathReportsTheLockfileAndLeavesItAlone) {
  // Three kernels, a fourth shard: tune touches no GPU and exits 0, then reports the lockfile.
  const fs::path lockfile = dir_ / "kernelevo.lock.json";
  fs::copy_file(kFixtures + "/lockfiles/basic.lock.json", lockfile);
  const std::string before = read_text(lockfile);
  const fs::path reports = dir_ / "reports";
  const auto run = run_kernelevo("tune " + quoted(kFixtures + "/specs/softmax.cu") + " " +
                                     quoted(kFixtures + "/specs/project") +
                                     " --shard 4/4 --report " + quoted(reports.string()),
                                 dir_);
  if (run.err.find("built without CUDA") != std::string::npos) GTEST_SKIP() << "without CUDA";
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_reports_name(reports, "gemm_tiled");
  const auto report = nlohmann::json::parse(read_text(reports / "report.json"));
  EXPECT_EQ(report.at("kind"), "tune");
  bool found = false;
  for (const auto& k : report.at("kernels"))
    if (k.at("id") == "gemm_tiled" && k.at("device") == "NVIDIA A100-SXM4-80GB") {
      found = true;
      EXPECT_NEAR(k.at("time_us").get<double>(), 801.2, 1e-9);
    }
  EXPECT_TRUE(found) << report.dump(2);
  EXPECT_EQ(read_text(lockfile), before);
}

TEST_F(TuneReportCli, GpuPathWithoutALockfileWritesNothing) {
  const fs::path reports = dir_ / "reports";
  const auto run = run_kernelevo("tune " + quoted(kFixtures + "/specs/softmax.cu") + " " +
                                     quoted(kFixtures + "/specs/project") +
                                     " --shard 4/4 --report " + quoted(reports.string()),
                                 dir_);
  if (run.err.find("built without CUDA") != std::string::npos) GTEST_SKIP() << "without CUDA";
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("no lockfile"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(reports / "report.json"));
  EXPECT_FALSE(fs::exists(dir_ / "kernelevo.lock.json"));
}

}  // namespace
