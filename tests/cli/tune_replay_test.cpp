#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "io/trace.h"
#include "support/cli_run.h"
#include "support/temp_dir.h"

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
};

// Runs the kernelevo binary; stdout captured, stderr discarded.
CliRun kernelevo(const std::string& args) {
  const auto run = kev::test_support::run_kernelevo(args, std::filesystem::current_path());
  return {run.exit_code, run.out};
}

const std::string kSynthetic = std::string(KERNELEVO_FIXTURES) + "/spaces/synthetic_kt.json";

class TuneReplayCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.path(); }
  const kev::test_support::TempDir tmp_;
  std::filesystem::path dir_;
};

TEST_F(TuneReplayCli, PrintsOneJsonObject) {
  const CliRun run = kernelevo("tune --replay " + kSynthetic +
                               " --strategy auto --budget 40 --seed 3 --format json");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("strategy"), "auto");
  EXPECT_EQ(j.at("seed"), 3);
  EXPECT_EQ(j.at("evaluations"), 40);
  EXPECT_EQ(j.at("space_size"), 144);
  const auto& params = j.at("best").at("params");
  EXPECT_EQ(params.size(), 4u);
  EXPECT_TRUE(params.contains("block"));
  EXPECT_GT(j.at("best").at("time_us").get<double>(), 0.0);
  EXPECT_LE(j.at("optimum_us").get<double>(), j.at("best").at("time_us").get<double>());
  int counted = 0;
  for (const auto& [k, v] : j.at("counts").items()) counted += v.get<int>();
  EXPECT_EQ(counted, 40);
  // Same seed, same answer.
  const CliRun again = kernelevo("tune --replay " + kSynthetic +
                                 " --strategy auto --budget 40 --seed 3 --format json");
  EXPECT_EQ(nlohmann::json::parse(again.out).at("best"), j.at("best"));
}

TEST_F(TuneReplayCli, ExhaustiveFindsTheRecordedOptimum) {
  const CliRun run =
      kernelevo("tune --replay " + kSynthetic + " --strategy exhaustive --format json");
  ASSERT_EQ(run.exit_code, 0);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("evaluations"), 144);
  EXPECT_EQ(j.at("exhausted"), true);
  EXPECT_DOUBLE_EQ(j.at("best").at("time_us").get<double>(), j.at("optimum_us").get<double>());
}

TEST_F(TuneReplayCli, ResumeContinuesATraceWithoutRepeats) {
  const std::string trace = (dir_ / "t.jsonl").string();
  CliRun run =
      kernelevo("tune --replay " + kSynthetic + " --strategy random --budget 20 --seed 5 --trace " +
                trace + " --format json");
  ASSERT_EQ(run.exit_code, 0);
  // Simulate a killed run: keep the header and 12 records, plus half a line.
  std::ifstream in(trace);
  std::string line, kept;
  for (int i = 0; i < 13 && std::getline(in, line); ++i) kept += line + "\n";
  std::getline(in, line);
  kept += line.substr(0, line.size() / 2);
  in.close();
  std::ofstream(trace) << kept;
  run = kernelevo("tune --replay " + kSynthetic +
                  " --strategy random --budget 30 --seed 5 --resume " + trace + " --format json");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("evaluations"), 30);
  EXPECT_EQ(j.at("new_evaluations"), 18);
  auto t = kev::io::read_trace(trace);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_FALSE(t->truncated);
  ASSERT_EQ(t->records.size(), 30u);
  std::set<std::string> keys;
  for (const auto& r : t->records) {
    std::string key;
    for (const auto& [k, v] : r.params) key += k + "=" + v.to_string() + ",";
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), 30u);
}

TEST_F(TuneReplayCli, TextOutputAndUsageErrors) {
  CliRun run = kernelevo("tune --replay " + kSynthetic + " --budget 10");
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("best: "), std::string::npos);
  EXPECT_NE(run.out.find("10 evaluations of 144 points"), std::string::npos);
  EXPECT_EQ(kernelevo("tune --replay " + kSynthetic + " --strategy bogus").exit_code, 2);
  EXPECT_EQ(kernelevo("tune --replay " + kSynthetic + " --time forever").exit_code, 2);
  EXPECT_EQ(kernelevo("tune --replay /nonexistent.json").exit_code, 2);
  EXPECT_EQ(kernelevo("tune").exit_code, 2);
}

TEST_F(TuneReplayCli, AllFailedSpaceExitsWithFailure) {
  const CliRun run = kernelevo("tune --replay " + std::string(KERNELEVO_FIXTURES) +
                               "/spaces/all_failed_kt.json --format json");
  EXPECT_EQ(run.exit_code, 1);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j.at("best").is_null());
  EXPECT_EQ(j.at("evaluations"), 6);
}

// auto's Gaussian process scores 300 random candidates and the elites' neighbours at each
// of its 200 model-phase asks: 0.7 s for 400 evaluations on one free core of the CI machine's
// kind (2026-12-05), under 2 ms an ask, next to a real evaluation's compile and run.
TEST_F(TuneReplayCli, ReplaysASharedSpaceInUnderTwoSeconds) {
  const std::string file = std::string(KERNELEVO_SHARED_SPACES) + "/convolution_A100.json.gz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " absent";
  const CliRun run = kernelevo("tune --replay " + file + " --budget 400 --noise --format json");
  ASSERT_EQ(run.exit_code, 0);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("evaluations"), 400);
  EXPECT_LT(j.at("elapsed_s").get<double>(), 2.0);  // the search itself, excluding loading
}

}  // namespace
