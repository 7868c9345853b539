// `kernelevo tune` driven end to end with workers that need no GPU (tests/fake_worker):
// several GPUs (--gpus), --memcheck with a stand-in sanitizer, per-kernel traces and
// resume, where sources may lie, and `check` measuring a current evolved variant. The
// tuner's side is real, compiles included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "compile_test_support.h"
#include "core/timing_names.h"
#include "fake_worker_env.h"
#include "io/hash.h"
#include "support/cli_run.h"

namespace kev::cuda {
namespace {
using testing::TempDir;

using CliRun = test_support::CommandRun;

CliRun kernelevo(const TempDir& dir, const std::string& env, const std::string& args) {
  return test_support::run_kernelevo(args, dir.path(), env);
}

struct Interval {
  long long start = 0;
  long long end = 0;
};

TEST(TuneGpus, EachGpuHasAWorkerAndTheKernelsAreTunedAtTheSameTime) {
  TempDir dir;
  const std::string env = testing::fake_worker_env(
      150, dir.file("cache"), "KERNELEVO_FAKE_LOG='" + dir.file("runs.log") + "'");
  for (const char* name : {"softmax.cu", "rmsnorm.cu"})
    std::filesystem::copy_file(testing::source_dir_file(std::string("templates/") + name),
                               dir.file(name));
  const CliRun run = kernelevo(dir, env,
                               "tune softmax.cu rmsnorm.cu --gpus 0,1 --strategy random --budget 3 "
                               "--format json --lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report["devices"].size(), 2u) << run.out;
  EXPECT_EQ(report["devices"][0]["index"], 0);
  EXPECT_EQ(report["devices"][1]["index"], 1);
  std::set<int> gpus_used;
  for (const auto& k : report["kernels"]) {
    EXPECT_EQ(k["evaluations"], 3) << k.dump();
    EXPECT_FALSE(k["winner"].is_null()) << k.dump();
    gpus_used.insert(k["gpu"].get<int>());
  }
  EXPECT_THAT(gpus_used, ::testing::UnorderedElementsAre(0, 1));

  // Every run of a kernel happened on the GPU the report names, and the two GPUs' runs overlap.
  std::map<int, std::vector<Interval>> by_device;
  std::map<std::string, std::set<int>> devices_of_kernel;
  std::ifstream log(dir.file("runs.log"));
  int device = 0;
  std::string kernel;
  Interval interval;
  while (log >> device >> kernel >> interval.start >> interval.end) {
    by_device[device].push_back(interval);
    devices_of_kernel[kernel].insert(device);
  }
  ASSERT_EQ(by_device.size(), 2u);
  for (const auto& [id, devices] : devices_of_kernel) EXPECT_EQ(devices.size(), 1u) << id;
  // Compiles come between runs, so single runs need not coincide; each GPU's span of work
  // (its first run's start to its last run's end) overlapping the other's shows the kernels
  // were tuned at the same time rather than one after the other.
  const auto span = [](const std::vector<Interval>& runs) {
    Interval s{runs.front().start, runs.front().end};
    for (const auto& r : runs) s = {std::min(s.start, r.start), std::max(s.end, r.end)};
    return s;
  };
  const Interval a = span(by_device[0]);
  const Interval b = span(by_device[1]);
  EXPECT_TRUE(a.start < b.end && b.start < a.end) << "the two GPUs' work did not overlap in time";

  std::ifstream lock(dir.file("lock.json"));
  const auto lockfile = nlohmann::json::parse(lock);
  EXPECT_TRUE(lockfile["kernels"].contains("softmax_rows"));
  EXPECT_TRUE(lockfile["kernels"].contains("rmsnorm_rows"));
}

// One run per line of the fake workers' log: device, kernel, start and end in ns.
std::map<int, std::vector<Interval>> runs_by_device(const std::string& log_path,
                                                    std::set<std::string>* kernels = nullptr) {
  std::map<int, std::vector<Interval>> by_device;
  std::ifstream log(log_path);
  int device = 0;
  std::string kernel;
  Interval interval;
  while (log >> device >> kernel >> interval.start >> interval.end) {
    by_device[device].push_back(interval);
    if (kernels != nullptr) kernels->insert(kernel);
  }
  return by_device;
}

TEST(TuneGpus, OneKernelIsSearchedByEveryGpuAtOnce) {
  TempDir dir;
  const std::string common = testing::fake_worker_env(120, dir.file("cache"));
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  // The same search on one GPU first fills the compile cache, so that on a loaded machine
  // the two GPUs' runs are not kept apart by compiles.
  const CliRun warm =
      kernelevo(dir, common, "tune softmax.cu --strategy random --budget 8 --lockfile warm.json");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const std::string env = common + " KERNELEVO_FAKE_LOG='" + dir.file("runs.log") + "'";
  const CliRun run = kernelevo(dir, env,
                               "tune softmax.cu --gpus 0,1 --strategy random --budget 8 "
                               "--format json --lockfile lock.json --trace trace.jsonl");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr("one search on GPUs 0,1"));
  const auto report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report["kernels"].size(), 1u);
  const auto& k = report["kernels"][0];
  EXPECT_EQ(k["evaluations"], 8) << k.dump();
  EXPECT_EQ(k["gpus"], nlohmann::json::array({0, 1})) << k.dump();
  EXPECT_FALSE(k["winner"].is_null());

  // Both GPUs ran configurations of the one kernel (the baseline runs on GPU 0), and some of
  // their runs were in progress at the same moment.
  std::set<std::string> kernels;
  auto by_device = runs_by_device(dir.file("runs.log"), &kernels);
  EXPECT_EQ(kernels, std::set<std::string>{"softmax_rows"});
  ASSERT_EQ(by_device.size(), 2u);
  EXPECT_EQ(by_device[0].size() + by_device[1].size(), 9u);  // baseline + 8 evaluations
  bool overlap = false;
  for (const auto& a : by_device[0])
    for (const auto& b : by_device[1]) overlap = overlap || (a.start < b.end && b.start < a.end);
  EXPECT_TRUE(overlap) << "no two runs on different GPUs were in progress at once";

  // Every evaluation is in the trace once.
  std::ifstream trace(dir.file("trace.jsonl"));
  std::set<std::string> params;
  int records = 0;
  for (std::string line; std::getline(trace, line);) {
    const auto j = nlohmann::json::parse(line);
    if (!j.contains("params")) continue;
    ++records;
    params.insert(j["params"].dump());
  }
  EXPECT_EQ(records, 8);
  EXPECT_EQ(params.size(), 8u);
}

// Regression: a tune's report showed "-" for the speedup's interval, because it read both
// times back from the lockfile, which records medians only.
TEST(TuneReport, TheRunsReportGivesTheSpeedupsIntervalFromItsOwnMeasurements) {
  TempDir dir;
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const CliRun run = kernelevo(dir, env,
                               "tune softmax.cu --strategy random --budget 12 --lockfile lock.json "
                               "--report reports");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(std::ifstream(dir.file("reports/report.json")));
  ASSERT_EQ(report["kernels"].size(), 1u) << report.dump();
  const auto& k = report["kernels"][0];
  ASSERT_TRUE(k.contains("ratio_ci")) << k.dump();
  const double ratio = k["ratio"].get<double>();
  EXPECT_LT(k["ratio_ci"][0].get<double>(), ratio) << k.dump();
  EXPECT_GT(k["ratio_ci"][1].get<double>(), ratio) << k.dump();
  EXPECT_THAT(k["evidence"].get<std::string>(),
              ::testing::HasSubstr("over the source defaults, both measured in this run, 95% CI "));
  // The times are the lockfile's: the winner as locked, the source defaults as recorded.
  const auto lock = nlohmann::json::parse(std::ifstream(dir.file("lock.json")));
  const auto& entry = lock["kernels"]["softmax_rows"]["targets"].begin()->begin().value();
  EXPECT_NEAR(k["time_us"].get<double>(), entry["time_us"].get<double>(), 0.05) << entry.dump();
  EXPECT_NEAR(k["baseline_us"].get<double>(), entry["baseline_us"].get<double>(), 0.05);

  const std::string md = [&] {
    std::ifstream in(dir.file("reports/report.md"));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  EXPECT_THAT(md, ::testing::ContainsRegex("\\| [0-9.]+x\\.\\.[0-9.]+x \\|"));

  // Tuned again, the old entry is re-measured in the same run and named as such: either it is
  // kept (no row change) or the new winner's interval is against it.
  const CliRun again = kernelevo(dir, env,
                                 "tune softmax.cu --strategy random --budget 12 --seed 7 "
                                 "--lockfile lock.json --report reports2");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto second = nlohmann::json::parse(std::ifstream(dir.file("reports2/report.json")));
  const std::string evidence = second["kernels"][0]["evidence"];
  if (second["kernels"][0]["params"] != k["params"])
    EXPECT_THAT(evidence, ::testing::HasSubstr("over the old entry, both measured in this run"));
  else
    EXPECT_THAT(evidence, ::testing::HasSubstr("over the old entry, recorded"));
}

TEST(TuneObjectives, TheFrontIsReportedAndTheRulesPointIsLocked) {
  TempDir dir;
  const std::string env =
      testing::fake_worker_env(1, dir.file("cache"), "KERNELEVO_FAKE_RESOURCES=1");
  std::string source = [] {
    std::ifstream in(testing::source_dir_file("templates/softmax.cu"));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  const std::string tolerance = "tolerance: {rtol: 1e-5, atol: 1e-6}\n";
  const auto at = source.find(tolerance);
  ASSERT_NE(at, std::string::npos);
  source.insert(at + tolerance.size(), "objectives: {minimize: [registers], within: 0.05}\n");
  std::ofstream(dir.file("softmax.cu")) << source;
  const CliRun run = kernelevo(dir, env,
                               "tune softmax.cu --strategy random --budget 12 --format json "
                               "--lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = nlohmann::json::parse(run.out);
  const auto& k = out["kernels"][0];
  EXPECT_THAT(k["objectives"].get<std::string>(), ::testing::HasSubstr("registers"));
  const auto& front = k["pareto"];
  ASSERT_GE(front.size(), 1u) << k.dump();
  // Faster points on the front use more registers; the locked one is the leanest within 5%.
  const double fastest = front[0]["time_us"].get<double>();
  nlohmann::json chosen = front[0];
  for (std::size_t i = 1; i < front.size(); ++i) {
    EXPECT_GE(front[i]["time_us"].get<double>(), front[i - 1]["time_us"].get<double>());
    EXPECT_LT(front[i]["resources"]["registers"].get<int>(),
              front[i - 1]["resources"]["registers"].get<int>());
    if (front[i]["time_us"].get<double>() <= fastest * 1.05) chosen = front[i];
  }
  EXPECT_EQ(k["winner"], chosen["params"]) << k.dump();
  const auto lock = nlohmann::json::parse(std::ifstream(dir.file("lock.json")));
  const auto& entry = lock["kernels"]["softmax_rows"]["targets"].begin()->begin().value();
  EXPECT_EQ(entry["params"], chosen["params"]) << entry.dump();
  EXPECT_THAT(entry["tuned_with"].get<std::string>(), ::testing::HasSubstr("registers"));
}

TEST(TuneGpus, AThrottledGpuIsReportedWithTheResults) {
  TempDir dir;
  const std::string env =
      testing::fake_worker_env(1, dir.file("cache"),
                               "KERNELEVO_FAKE_WARNING='GPU clock throttled (software thermal "
                               "slowdown): SM clock 1410 MHz'");
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const CliRun text =
      kernelevo(dir, env, "tune softmax.cu --strategy random --budget 3 --lockfile lock.json");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.err, ::testing::HasSubstr("warning: softmax_rows: GPU clock throttled "
                                             "(software thermal slowdown)"));
  EXPECT_THAT(text.out, ::testing::HasSubstr("warning: 4 runs saw the GPU throttle"));
  const CliRun json = kernelevo(
      dir, env, "tune softmax.cu --strategy random --budget 2 --format json --lockfile lock2.json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto k = nlohmann::json::parse(json.out)["kernels"][0];
  EXPECT_EQ(k["throttled_runs"], 3);  // the baseline and two evaluations
  EXPECT_THAT(k["throttle"].get<std::string>(), ::testing::HasSubstr("SM clock 1410 MHz"));
}

TEST(TuneGpus, AKernelWhoseSpecNamesAnArchIsLockedAndCheckedUnderIt) {
  TempDir dir;
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  std::ifstream in(testing::source_dir_file("templates/softmax.cu"));
  std::string source((std::istreambuf_iterator<char>(in)), {});
  const std::string kernel_line = "kernel: softmax_rows\n";
  ASSERT_NE(source.find(kernel_line), std::string::npos);
  source.replace(source.find(kernel_line), kernel_line.size(), kernel_line + "arch: sm_90a\n");
  dir.write("softmax.cu", source);

  const CliRun tune = kernelevo(
      dir, env, "tune softmax.cu --strategy random --budget 2 --format json --lockfile lock.json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  std::ifstream lock_in(dir.file("lock.json"));
  const auto targets = nlohmann::json::parse(lock_in)["kernels"]["softmax_rows"]["targets"];
  EXPECT_TRUE(targets.contains("sm_90a")) << targets.dump();
  EXPECT_FALSE(targets.contains("sm_90")) << "a portable build must not take sm_90a code";

  const CliRun check =
      kernelevo(dir, env, "check softmax.cu --lockfile lock.json --rounds 2 --report-json r.json");
  EXPECT_NE(check.exit_code, 2) << check.err;
  std::ifstream report_in(dir.file("r.json"));
  const auto k = nlohmann::json::parse(report_in)["kernels"][0];
  EXPECT_EQ(k["arch"], "sm_90a") << k.dump();
  EXPECT_NE(k["verdict"], "missing") << k.dump();
}

TEST(TuneGpus, ASourceOutsideTheProjectIsRefusedBeforeTuning) {
  TempDir dir;
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  const CliRun run = kernelevo(dir, env,
                               "tune '" + testing::source_dir_file("templates/softmax.cu") +
                                   "' --strategy random --budget 1 --lockfile lock.json");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr("must lie inside the project"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("lock.json")));
}

TEST(TuneGpus, AllFindsEveryGpuThatAnswers) {
  TempDir dir;
  // The fake answers for any index: "all" must stop somewhere, so it is given a worker that
  // fails from GPU 2 on.
  const std::string wrapper = dir.write("wrapper.sh",
                                        "#!/bin/sh\nfor a; do last=$a; done\n"
                                        "[ \"$last\" -ge 2 ] && exit 3\nexec '" +
                                            std::string(KERNELEVO_FAKE_WORKER) + "' \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  const std::string env = "KERNELEVO_WORKER_WRAPPER='" + wrapper + "' KERNELEVO_FAKE_RUN_MS=1" +
                          " KERNELEVO_CACHE_DIR='" + dir.file("cache") + "'";
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const CliRun run = kernelevo(
      dir, env,
      "tune softmax.cu --gpus all --strategy random --budget 2 --format json --lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["devices"].size(), 2u) << run.out;
}

}  // namespace
}  // namespace kev::cuda

namespace kev::cuda {
namespace {
using testing::TempDir;

// A stand-in for compute-sanitizer: runs the worker command it is given, then writes a log
// with `errors` memcheck errors where --log-file says.
std::string fake_sanitizer(const TempDir& dir, int errors) {
  std::string script =
      "#!/bin/sh\nlog=\nwhile [ $# -gt 0 ]; do case $1 in\n"
      "  --log-file) log=$2; shift 2;;\n  --tool|--print-limit) shift 2;;\n  *) break;;\nesac; "
      "done\n"
      "\"$@\"\nrc=$?\n";
  if (errors > 0)
    script +=
        "printf '========= Invalid __global__ read of size 4 bytes\\n=========     at "
        "softmax_rows+0x1d0\\n' >> \"$log\"\n";
  script += "printf '========= ERROR SUMMARY: " + std::to_string(errors) +
            " errors\\n' >> \"$log\"\nexit $rc\n";
  const auto path = dir.write("compute-sanitizer", script);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

CliRun tune_with_memcheck(const TempDir& dir, int errors) {
  const std::string env = testing::fake_worker_env(
      1, dir.file("cache"), "KERNELEVO_COMPUTE_SANITIZER='" + fake_sanitizer(dir, errors) + "'");
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  return kernelevo(
      dir, env,
      "tune softmax.cu --memcheck --strategy random --budget 2 --format json --lockfile lock.json");
}

// The source defaults faster than every configuration the search tried (1 us against the
// fake's 10 us and more): the defaults, as read from the source, are what gets locked.
TEST(TuneDefaults, ASearchSlowerThanTheSourceDefaultsLocksTheDefaults) {
  TempDir dir;
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const std::string env =
      testing::fake_worker_env(1, dir.file("cache"), "KERNELEVO_FAKE_BASELINE_US=1");
  const CliRun run = kernelevo(
      dir, env, "tune softmax.cu --strategy random --budget 3 --format json --lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr("softmax_rows: no configuration was faster than the "
                                            "source defaults"));
  EXPECT_THAT(run.err, ::testing::HasSubstr("against 1.00 us): the defaults are locked"));
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_THAT(report["kernels"][0]["lock"].get<std::string>(),
              ::testing::HasSubstr("the source defaults (no configuration was faster) locked in"));
  std::ifstream in(dir.file("lock.json"));
  const auto lock = nlohmann::json::parse(in);
  const auto& params = lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"]["params"];
  EXPECT_EQ(params["SOFTMAX_BLOCK"], 256) << lock.dump(2);
  EXPECT_EQ(params["SOFTMAX_MAX_ROW_THREADS"], 1024);
  EXPECT_EQ(params["SOFTMAX_VEC"], 4);
  EXPECT_EQ(params["SOFTMAX_UNROLL"], 8);
  EXPECT_EQ(params["SOFTMAX_LOAD_HINT"], 0);
  EXPECT_EQ(params["SOFTMAX_STORE_HINT"], 0);
}

TEST(TuneMemcheck, ACleanWinnerIsLocked) {
  TempDir dir;
  const CliRun run = tune_with_memcheck(dir, 0);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["kernels"][0]["memcheck"], "0 errors");
  EXPECT_TRUE(std::filesystem::exists(dir.file("lock.json")));
}

TEST(TuneMemcheck, AWinnerWithMemcheckErrorsIsNotLocked) {
  TempDir dir;
  const CliRun run = tune_with_memcheck(dir, 2);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  const auto& k = report["kernels"][0];
  EXPECT_THAT(k["failure"].get<std::string>(),
              ::testing::HasSubstr("fails memcheck: 2 memcheck errors"));
  EXPECT_THAT(k["memcheck"].get<std::string>(), ::testing::HasSubstr("Invalid __global__ read"));
  EXPECT_EQ(k["lock"], "not locked");
  EXPECT_FALSE(std::filesystem::exists(dir.file("lock.json")));
}

TEST(TuneMemcheck, NoSanitizerIsAnEnvironmentError) {
  TempDir dir;
  const std::string env = testing::fake_worker_env(
      1, dir.file("cache"), "KERNELEVO_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer");
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  const CliRun run = kernelevo(
      dir, env,
      "tune softmax.cu --memcheck --strategy random --budget 1 --format json --lockfile lock.json");
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("lock.json")));
}

}  // namespace
}  // namespace kev::cuda

namespace kev::cuda {
namespace {
using testing::TempDir;

std::size_t lines_in(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.empty() ? 0 : 1;
  return n;
}

TEST(TuneTraces, SeveralKernelsResumeFromTheirOwnTraces) {
  TempDir dir;
  for (const char* name : {"softmax.cu", "rmsnorm.cu"})
    std::filesystem::copy_file(testing::source_dir_file(std::string("templates/") + name),
                               dir.file(name));
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  const std::string common =
      "tune softmax.cu rmsnorm.cu --strategy random --format json --lockfile lock.json ";
  const CliRun first = kernelevo(dir, env, common + "--budget 2 --trace t.jsonl");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(lines_in(dir.file("t.softmax_rows.jsonl")), 3u);  // header + 2 evaluations
  ASSERT_EQ(lines_in(dir.file("t.rmsnorm_rows.jsonl")), 3u);
  std::filesystem::remove(dir.file("t.rmsnorm_rows.jsonl"));  // as if the first run stopped early

  const CliRun second = kernelevo(dir, env, common + "--budget 5 --resume t.jsonl");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(lines_in(dir.file("t.softmax_rows.jsonl")), 6u);  // 2 resumed + 3 new
  EXPECT_EQ(lines_in(dir.file("t.rmsnorm_rows.jsonl")), 6u);  // 5 new, from the start
  const auto report = nlohmann::json::parse(second.out);
  for (const auto& k : report["kernels"]) EXPECT_EQ(k["evaluations"], 5) << k.dump();
}

}  // namespace
}  // namespace kev::cuda

namespace kev::cuda {
namespace {
using testing::TempDir;

// `check` of a kernel with a winner per bucket measures each bucket's winner on that
// bucket's problems (it once measured every bucket on the first bucket's problems: on the
// H200 the second winner of examples/softmax-app was 40% SLOWER at the wrong shape).
TEST(CheckBuckets, EachBucketsWinnerIsMeasuredOnItsOwnProblems) {
  TempDir dir;
  std::filesystem::copy_file(testing::source_dir_file("tests/cmake/dispatch/rows.cu"),
                             dir.file("rows.cu"));
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  const CliRun tune =
      kernelevo(dir, env, "tune rows.cu --strategy exhaustive --lockfile lock.json");
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
  // The table's columns stay aligned when a row names its bucket.
  std::istringstream table(tune.out);
  std::size_t arch_column = std::string::npos;
  int bucket_rows = 0;
  for (std::string line; std::getline(table, line);) {
    if (line.rfind("kernel ", 0) == 0) arch_column = line.find(" arch ") + 1;
    if (line.rfind("rows_scale cols [", 0) == 0) {
      ++bucket_rows;
      EXPECT_EQ(line.find(" sm_90 ") + 1, arch_column) << tune.out;
    }
  }
  EXPECT_EQ(bucket_rows, 2) << tune.out;
  const CliRun check =
      kernelevo(dir, env + " KERNELEVO_FAKE_PROBLEM_LOG='" + dir.file("problems.log") + "'",
                "check rows.cu --lockfile lock.json --rounds 2");
  ASSERT_NE(check.exit_code, 2) << check.err;
  std::ifstream log(dir.file("problems.log"));
  std::map<std::string, int> runs;  // the problems of each run -> how many runs
  for (std::string line; std::getline(log, line);) ++runs[line];
  // The baseline of each bucket and its winner's rounds, each on its own bucket's problem,
  // for both kernels of the source (cols_scale splits rows).
  const std::set<std::string> own = {"rows_scale cols=1024,rows=64", "rows_scale cols=8192,rows=64",
                                     "cols_scale cols=4096,rows=8",
                                     "cols_scale cols=4096,rows=512"};
  for (const std::string& problems : own) EXPECT_GT(runs[problems], 0) << problems << check.out;
  for (const auto& [problems, n] : runs)
    EXPECT_TRUE(own.count(problems) == 1) << problems << " (" << n << " runs)";
}

// A one-size bucket's winner compiled with its size define is slower (the define adds a symbol
// the fake worker times at double): tune locks it without the define ("sized": false) and
// check then measures images without it; where the define costs nothing it stays sized.
TEST(TuneSized, AWinnerFasterWithoutItsSizeDefineIsLockedAndCheckedWithout) {
  for (const bool costs : {true, false}) {
    TempDir dir;
    std::filesystem::copy_file(testing::source_dir_file("tests/cmake/dispatch/rows.cu"),
                               dir.file("rows.cu"));
    std::ofstream(dir.file("rows.cu"), std::ios::app)
        << "\n#ifdef KERNELEVO_SIZE_rows\n__device__ int kev_sized_marker = "
           "KERNELEVO_SIZE_rows;\n#endif\n";
    const std::string env = testing::fake_worker_env(1, dir.file("cache")) +
                            (costs ? " KERNELEVO_FAKE_SLOW_MARKER=kev_sized_marker" : "");
    const CliRun tune =
        kernelevo(dir, env, "tune rows.cu --strategy exhaustive --lockfile lock.json");
    ASSERT_EQ(tune.exit_code, 0) << tune.err;
    std::ifstream in(dir.file("lock.json"));
    const auto lock = nlohmann::json::parse(in);
    const auto& cols = lock["kernels"]["cols_scale"]["targets"]["sm_90"]["Fake H200"];
    ASSERT_EQ(cols["buckets"].size(), 2u) << lock.dump(2);
    for (const auto& b : cols["buckets"]) EXPECT_EQ(b.contains("sized"), costs) << lock.dump(2);
    EXPECT_EQ(lock["schema_version"], costs ? 4 : 3);
    EXPECT_THAT(tune.err, ::testing::HasSubstr(
                              "cols_scale rows [8, 9): without its size define, the winner "));
    EXPECT_THAT(tune.err, ::testing::HasSubstr(costs ? "faster with confidence, locked without it"
                                                     : ": locked with it"));

    const CliRun check = kernelevo(dir,
                                   env +
                                       " KERNELEVO_FAKE_MARKER=kev_sized_marker "
                                       "KERNELEVO_FAKE_MARKER_LOG='" +
                                       dir.file("marker.log") + "'",
                                   "check rows.cu --lockfile lock.json --rounds 2");
    ASSERT_NE(check.exit_code, 2) << check.err;
    std::ifstream log(dir.file("marker.log"));
    std::map<std::string, int> seen;
    for (std::string line; std::getline(log, line);) ++seen[line];
    // Only cols_scale's one-size buckets can hold the marker: its winners' runs, and the
    // sized baselines of each bucket, hold it exactly when the lock says sized.
    EXPECT_GT(seen["absent"], 0);
    if (costs)
      EXPECT_EQ(seen["found"], 0) << check.err;
    else
      EXPECT_GT(seen["found"], 0) << check.err;
  }
}

// `check` measures what the build compiles: the evolved variant while its lockfile entry is
// current, else the original. The variant defines a string the original lacks, and the fake
// worker says whether each image it runs holds it.
class CheckWithVariant : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                               dir_.file("softmax.cu"));
    std::ifstream in(dir_.file("softmax.cu"));
    const std::string original((std::istreambuf_iterator<char>(in)), {});
    // In the kernel's own region (after the spec block), where a variant may differ.
    const std::string spec_end = "// clang-format on\n";
    const std::size_t at = original.find(spec_end) + spec_end.size();
    variant_ = original.substr(0, at) + "__device__ const char kernelevo_test_marker[] = \"" +
               kMarker + "\";\n" + original.substr(at);
    std::filesystem::create_directories(dir_.file("kernelevo-variants"));
    dir_.write("kernelevo-variants/softmax_rows.cu", variant_);
    const nlohmann::json lock = {
        {"schema_version", 2},
        {"kernels",
         {{"softmax_rows",
           {{"source", "softmax.cu"},
            {"source_hash", sha256_of(original)},
            {"variant",
             {{"file", "kernelevo-variants/softmax_rows.cu"},
              {"hash", sha256_of(variant_)},
              {"base_source_hash", sha256_of(original)}}},
            {"targets",
             {{"sm_90",
               {{"Fake H200", {{"params", {{"SOFTMAX_BLOCK", 256}}}, {"time_us", 50.0}}}}}}}}}}}};
    dir_.write("lock.json", lock.dump(2));
  }
  CliRun check() {
    std::filesystem::remove(dir_.file("markers.log"));
    const std::string env = testing::fake_worker_env(1, dir_.file("cache"), marker_env());
    return kernelevo(dir_, env,
                     "check softmax.cu --lockfile lock.json --rounds 2 --report-json r.json");
  }
  std::vector<std::string> markers() const {
    std::ifstream log(dir_.file("markers.log"));
    std::vector<std::string> out;
    for (std::string line; std::getline(log, line);) out.push_back(line);
    return out;
  }
  std::string evidence() const {
    std::ifstream in(dir_.file("r.json"));
    return nlohmann::json::parse(in)["kernels"][0]["evidence"].get<std::string>();
  }
  // The fake worker logs to markers.log whether the source it ran holds kMarker.
  std::string marker_env() const {
    return std::string("KERNELEVO_FAKE_MARKER=") + kMarker + " KERNELEVO_FAKE_MARKER_LOG='" +
           dir_.file("markers.log") + "'";
  }
  static constexpr const char* kMarker = "KERNELEVO_VARIANT_MEASURED";
  TempDir dir_;
  std::string variant_;
};

TEST_F(CheckWithVariant, ACurrentVariantIsWhatCheckMeasures) {
  const CliRun run = check();
  ASSERT_NE(run.exit_code, 2) << run.err;
  const auto seen = markers();
  ASSERT_FALSE(seen.empty()) << run.err;
  for (const auto& m : seen) EXPECT_EQ(m, "found");
  EXPECT_THAT(evidence(), ::testing::HasSubstr(
                              "measured the evolved variant kernelevo-variants/softmax_rows.cu"));
}

TEST_F(CheckWithVariant, TuneTunesACurrentVariantAndKeepsItRecorded) {
  const std::string env = testing::fake_worker_env(1, dir_.file("cache"), marker_env());
  const CliRun run =
      kernelevo(dir_, env, "tune softmax.cu --strategy random --budget 3 --lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr(
                           "tuning the evolved variant kernelevo-variants/softmax_rows.cu"));
  const auto seen = markers();
  ASSERT_FALSE(seen.empty());
  for (const auto& m : seen) EXPECT_EQ(m, "found");
  std::ifstream in(dir_.file("lock.json"));
  const auto lock = nlohmann::json::parse(in);
  EXPECT_EQ(lock["kernels"]["softmax_rows"]["variant"]["file"],
            "kernelevo-variants/softmax_rows.cu");
}

TEST_F(CheckWithVariant, CompareMeasuresEachSidesBuild) {
  // The base revision has no variant; the head records one.
  std::ifstream in(dir_.file("lock.json"));
  auto lock = nlohmann::json::parse(in);
  const auto with_variant = lock.dump(2);
  lock["kernels"]["softmax_rows"].erase("variant");
  lock["schema_version"] = 1;
  dir_.write("lock.json", lock.dump(2));
  ASSERT_EQ(std::system(("cd '" + dir_.path() +
                         "' && git init -q && git add softmax.cu lock.json && git -c "
                         "user.email=t@t -c user.name=t commit -qm base")
                            .c_str()),
            0);
  dir_.write("lock.json", with_variant);
  const std::string env = testing::fake_worker_env(1, dir_.file("cache"), marker_env());
  const CliRun run =
      kernelevo(dir_, env, "compare softmax.cu --base HEAD --lockfile lock.json --rounds 2");
  ASSERT_NE(run.exit_code, 2) << run.err;
  const auto seen = markers();
  const auto found = std::count(seen.begin(), seen.end(), "found");
  const auto absent = std::count(seen.begin(), seen.end(), "absent");
  EXPECT_GT(found, 0) << run.err;   // the head's variant
  EXPECT_GT(absent, 0) << run.err;  // the base's original
  EXPECT_EQ(found + absent, static_cast<long>(seen.size()));
}

TEST_F(CheckWithVariant, AnEditedVariantLeavesCheckMeasuringTheOriginal) {
  dir_.write("kernelevo-variants/softmax_rows.cu", variant_ + "// edited by hand\n");
  const CliRun run = check();
  ASSERT_NE(run.exit_code, 2) << run.err;
  const auto seen = markers();
  ASSERT_FALSE(seen.empty()) << run.err;
  for (const auto& m : seen) EXPECT_EQ(m, "absent");
  EXPECT_THAT(evidence(), ::testing::Not(::testing::HasSubstr("evolved variant")));
}

// Spaces of 2 * 40^10 points (tests/fixtures/specs/huge): no strategy counts or walks them
// up front, so tune reaches its budget of evaluations as on a small space.
TEST(TuneHugeSpace, EveryStrategyReachesItsBudgetWithoutWalkingTheSpace) {
  TempDir dir;
  for (const char* name : {"kernelevo.yaml", "free.cu", "linked.cu", "coupled.cu"})
    std::filesystem::copy_file(testing::fixture(std::string("specs/huge/") + name), dir.file(name));
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  // coupled: one constraint reads every parameter, so its count is only a lower bound.
  for (const auto& [kernel, strategy] : std::vector<std::pair<std::string, std::string>>{
           {"coupled", "auto"}, {"coupled", "random"}, {"linked", "exhaustive"}}) {
    const auto start = std::chrono::steady_clock::now();
    const CliRun run = kernelevo(dir, env,
                                 "tune . --kernel " + kernel + " --strategy " + strategy +
                                     " --budget 3 --format json --lockfile lock.json");
    ASSERT_EQ(run.exit_code, 0) << kernel << " " << strategy << ": " << run.err;
    const auto report = nlohmann::json::parse(run.out);
    EXPECT_EQ(report["kernels"][0]["evaluations"], 3) << run.out;
    EXPECT_FALSE(report["kernels"][0]["winner"].is_null()) << run.out;
    EXPECT_NE(run.err.find(kernel == "coupled" ? "at least " : "101376000000000 configurations"),
              std::string::npos)
        << run.err;
    // Compiles included; walking the space would take days.
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              30.0);
  }
}

// A trace file as its header, parsed, and the records after it as written: for tests that
// rewrite the header as another kernelevo would have written it.
struct TraceText {
  nlohmann::json header;
  std::string rest;  // from the newline that ends the header
  static TraceText read(const std::string& path) {
    std::ifstream in(path);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    const auto end = text.find('\n');
    return {nlohmann::json::parse(text.substr(0, end)), text.substr(end)};
  }
  // The text written.
  std::string write(const std::string& path) const {
    const std::string text = header.dump() + rest;
    std::ofstream(path, std::ios::trunc) << text;
    return text;
  }
};

// The shipped softmax template copied into `dir`, and the environment of a tune of it with
// fake workers taking 1 ms a run (`more`: further assignments, as fake_worker_env takes them).
std::string softmax_project(const TempDir& dir, const std::string& more = "") {
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  return testing::fake_worker_env(1, dir.file("cache"), more);
}

// A trace records how its times were taken; one timed another way (here: with the write-back
// charged, where this run does not charge it) is not resumed, since its times would not
// compare with new ones, and the trace is left as it was. A header that says nothing was
// timed as kernelevo timed before traces said (cold-l2) and resumes.
TEST(TuneTraces, ATraceTimedAnotherWayIsNotResumed) {
  TempDir dir;
  const std::string env = softmax_project(dir);
  const std::string common =
      "tune softmax.cu --strategy random --format json --lockfile lock.json ";
  const CliRun first = kernelevo(dir, env, common + "--budget 2 --trace t.jsonl");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  TraceText trace = TraceText::read(dir.file("t.jsonl"));
  nlohmann::json& header = trace.header;
  EXPECT_EQ(header["timing"], "cold-l2");
  header["timing"] = "cold-l2+write-back";
  const std::string charged = trace.write(dir.file("t.jsonl"));
  const CliRun refused = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("t.jsonl"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("timed as cold-l2+write-back and this kernelevo times as cold-l2:"),
            std::string::npos)
      << refused.err;
  {
    std::ifstream in(dir.file("t.jsonl"));
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), charged);
  }
  // The header's text is the trace's, not ours: it cannot start a line of its own.
  header["timing"] = std::string("cold-l2\n::error::forged ") + std::string(400, 'x');
  trace.write(dir.file("t.jsonl"));
  const CliRun hostile = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_NE(hostile.exit_code, 0);
  EXPECT_EQ(hostile.err.find("\n::error"), std::string::npos) << hostile.err;
  EXPECT_NE(hostile.err.find("timed as cold-l2\\n::error::forged xxx"), std::string::npos)
      << hostile.err;
  EXPECT_LT(hostile.err.size(), 600u) << hostile.err;
  header.erase("timing");
  trace.write(dir.file("t.jsonl"));
  const CliRun resumed = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// A trace records the revision of the L2 flush before its timed launches; one timed after
// another flush (the flush has changed what a kernel finds cached: its code, lines it marked
// evict-last) is not resumed, and one that does not say was timed before traces said.
TEST(TuneTraces, ATraceTimedAfterAnotherFlushIsNotResumed) {
  TempDir dir;
  const std::string env = softmax_project(dir);
  const std::string common =
      "tune softmax.cu --strategy random --format json --lockfile lock.json ";
  const CliRun first = kernelevo(dir, env, common + "--budget 2 --trace t.jsonl");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  TraceText trace = TraceText::read(dir.file("t.jsonl"));
  EXPECT_EQ(trace.header["flush"], kFlushRevision);
  for (const bool says : {true, false}) {
    if (says)
      trace.header["flush"] = 2;
    else
      trace.header.erase("flush");
    const std::string older = trace.write(dir.file("t.jsonl"));
    const CliRun refused = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
    EXPECT_NE(refused.exit_code, 0);
    EXPECT_NE(refused.err.find("t.jsonl"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("timed after the L2 flush of revision 2 and this kernelevo flushes "
                               "as revision 3"),
              std::string::npos)
        << refused.err;
    std::ifstream in(dir.file("t.jsonl"));
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), older);
  }
  trace.header["flush"] = kFlushRevision;
  trace.write(dir.file("t.jsonl"));
  const CliRun resumed = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

// The lockfile entry a tune writes says after which flush its times were taken, a bucket's
// entry too, so a later tune, `tune --report` and `merge` do not weigh them against times
// taken after another flush, and `check` can say why an old entry measures slower.
TEST(TuneTraces, TheLockfileSaysWhichFlushTheTimesCameAfter) {
  TempDir dir;
  std::filesystem::copy_file(testing::source_dir_file("templates/softmax.cu"),
                             dir.file("softmax.cu"));
  std::filesystem::copy_file(testing::source_dir_file("tests/cmake/dispatch/rows.cu"),
                             dir.file("rows.cu"));
  const std::string env = testing::fake_worker_env(1, dir.file("cache"));
  const CliRun run = kernelevo(
      dir, env, "tune softmax.cu rows.cu --strategy random --budget 2 --lockfile lock.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::ifstream lock_in(dir.file("lock.json"));
  const auto lock = nlohmann::json::parse(lock_in);
  for (const char* id : {"softmax_rows", "rows_scale"}) {
    const auto& entry = lock["kernels"][id]["targets"]["sm_90"]["Fake H200"];
    EXPECT_EQ(entry["flush"], kFlushRevision) << id;
    EXPECT_EQ(entry.contains("buckets"), std::string(id) == "rows_scale") << id;
  }
}

// `tune --l2 dirty` times every run from an L2 full of dirty lines (the state a kernel that
// follows another one's writes starts from, and do_bench's): the workers are asked for it,
// the trace says so (and a run timed the default way does not resume it), and the lockfile's
// provenance names it. Any other --l2 is refused before anything runs.
TEST(TuneTiming, TuneFromADirtyL2IsAskedForRecordedAndNotMixed) {
  TempDir dir;
  const std::string env =
      softmax_project(dir, "KERNELEVO_FAKE_TIMING_LOG='" + dir.file("timing.log") + "'");
  const std::string common =
      "tune softmax.cu --strategy random --format json --lockfile lock.json ";
  const CliRun dirty = kernelevo(dir, env, common + "--budget 2 --l2 dirty --trace t.jsonl");
  ASSERT_EQ(dirty.exit_code, 0) << dirty.err;
  std::ifstream log(dir.file("timing.log"));
  int runs = 0;
  for (std::string line; std::getline(log, line); ++runs) EXPECT_EQ(line, "cold-dirty-l2");
  EXPECT_GE(runs, 2);
  std::ifstream trace(dir.file("t.jsonl"));
  std::string header_line;
  std::getline(trace, header_line);
  EXPECT_EQ(nlohmann::json::parse(header_line)["timing"], "cold-dirty-l2");
  std::ifstream lock_in(dir.file("lock.json"));
  const auto lock = nlohmann::json::parse(lock_in);
  const std::string tuned_with =
      lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"]["tuned_with"];
  EXPECT_NE(tuned_with.find(", dirty L2"), std::string::npos) << tuned_with;
  EXPECT_EQ(lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"]["timing"],
            "cold-dirty-l2");
  // check measures the winner as it was tuned.
  std::filesystem::remove(dir.file("timing.log"));
  const CliRun check = kernelevo(dir, env, "check softmax.cu --lockfile lock.json --rounds 2");
  ASSERT_NE(check.exit_code, 2) << check.err;
  std::ifstream check_log(dir.file("timing.log"));
  int checked = 0;
  for (std::string line; std::getline(check_log, line); ++checked) EXPECT_EQ(line, "cold-dirty-l2");
  EXPECT_GE(checked, 2);

  const CliRun clean = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_NE(clean.exit_code, 0);
  EXPECT_NE(clean.err.find("timed as cold-dirty-l2 and this kernelevo times as cold-l2:"),
            std::string::npos)
      << clean.err;
  const CliRun again = kernelevo(dir, env, common + "--budget 4 --l2 dirty --resume t.jsonl");
  EXPECT_EQ(again.exit_code, 0) << again.err;

  const CliRun warm = kernelevo(dir, env, common + "--budget 2 --l2 warm");
  EXPECT_NE(warm.exit_code, 0);
  EXPECT_NE(warm.err.find("--l2"), std::string::npos) << warm.err;
}

// `tune --l2 clean+write-back` charges every timed run the write-back it leaves in the L2:
// the workers are asked for it, the trace and the lockfile entry say so, `check` measures the
// winner the same way, and a run timed the default way does not resume the trace.
TEST(TuneTiming, TuneWithTheWriteBackChargedIsAskedForRecordedAndNotMixed) {
  TempDir dir;
  const std::string env =
      softmax_project(dir, "KERNELEVO_FAKE_TIMING_LOG='" + dir.file("timing.log") + "'");
  const std::string common =
      "tune softmax.cu --strategy random --format json --lockfile lock.json ";
  const CliRun charged =
      kernelevo(dir, env, common + "--budget 2 --l2 clean+write-back --trace t.jsonl");
  ASSERT_EQ(charged.exit_code, 0) << charged.err;
  const auto lines_of = [&](const std::string& file) {
    std::ifstream in(dir.file(file));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  };
  const auto tuned = lines_of("timing.log");
  EXPECT_GE(tuned.size(), 2u);
  for (const auto& line : tuned) EXPECT_EQ(line, "cold-l2+write-back");
  EXPECT_EQ(TraceText::read(dir.file("t.jsonl")).header["timing"], "cold-l2+write-back");
  std::ifstream lock_in(dir.file("lock.json"));
  const auto entry =
      nlohmann::json::parse(lock_in)["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"];
  EXPECT_EQ(entry["timing"], "cold-l2+write-back");
  const std::string tuned_with = entry["tuned_with"];
  EXPECT_NE(tuned_with.find(", write-back charged"), std::string::npos) << tuned_with;
  std::filesystem::remove(dir.file("timing.log"));
  const CliRun check = kernelevo(dir, env, "check softmax.cu --lockfile lock.json --rounds 2");
  ASSERT_NE(check.exit_code, 2) << check.err;
  const auto checked = lines_of("timing.log");
  EXPECT_GE(checked.size(), 2u);
  for (const auto& line : checked) EXPECT_EQ(line, "cold-l2+write-back");
  const CliRun clean = kernelevo(dir, env, common + "--budget 4 --resume t.jsonl");
  EXPECT_NE(clean.exit_code, 0);
  EXPECT_NE(clean.err.find("timed as cold-l2+write-back and this kernelevo times as cold-l2:"),
            std::string::npos)
      << clean.err;
}

// The trace says which compiler made the timed code (nvcc by default, as the build compiles
// it; NVRTC with --compiler nvrtc) and a run with the other does not resume it: register
// allocation, and so the times, may differ between the two. A header that does not say was
// compiled as kernelevo compiled it before traces said (NVRTC for this device-only source).
TEST(TuneTraces, ATraceOfAnotherCompilersCodeIsNotResumed) {
  TempDir dir;
  const std::string env = softmax_project(dir);
  const std::string base = "tune softmax.cu --strategy random --format json ";
  const std::string common = base + "--lockfile lock.json ";
  const CliRun first = kernelevo(dir, env, common + "--budget 2 --trace t.jsonl");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(TraceText::read(dir.file("t.jsonl")).header["compiler"], "nvcc");
  const CliRun nvrtc = kernelevo(dir, env, common + "--budget 4 --compiler nvrtc --resume t.jsonl");
  EXPECT_NE(nvrtc.exit_code, 0);
  EXPECT_NE(nvrtc.err.find("compiled by nvcc and this run compiles with nvrtc"), std::string::npos)
      << nvrtc.err;
  const CliRun same = kernelevo(dir, env, common + "--budget 3 --resume t.jsonl");
  EXPECT_EQ(same.exit_code, 0) << same.err;

  const CliRun fresh =
      kernelevo(dir, env, base + "--budget 2 --compiler nvrtc --trace n.jsonl --lockfile n.json");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  TraceText trace = TraceText::read(dir.file("n.jsonl"));
  EXPECT_EQ(trace.header["compiler"], "nvrtc");
  std::ifstream lock_in(dir.file("n.json"));
  const auto lock = nlohmann::json::parse(lock_in);
  const std::string tuned_with =
      lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"]["tuned_with"];
  EXPECT_NE(tuned_with.find(", NVRTC"), std::string::npos) << tuned_with;
  // The entry says so too, so check and compare compile the winner with NVRTC; nvcc's
  // entries (the default) do not say.
  EXPECT_EQ(lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"]["compiler"], "nvrtc");
  std::ifstream default_in(dir.file("lock.json"));
  const auto default_lock = nlohmann::json::parse(default_in);
  EXPECT_FALSE(default_lock["kernels"]["softmax_rows"]["targets"]["sm_90"]["Fake H200"].contains(
      "compiler"));
  trace.header.erase("compiler");  // as an older kernelevo wrote it
  trace.write(dir.file("n.jsonl"));
  const CliRun old_default =
      kernelevo(dir, env, base + "--budget 4 --resume n.jsonl --lockfile n.json");
  EXPECT_NE(old_default.exit_code, 0);
  EXPECT_NE(old_default.err.find("compiled by nvrtc and this run compiles with nvcc"),
            std::string::npos)
      << old_default.err;
  const CliRun old_nvrtc =
      kernelevo(dir, env, base + "--budget 4 --compiler nvrtc --resume n.jsonl --lockfile n.json");
  EXPECT_EQ(old_nvrtc.exit_code, 0) << old_nvrtc.err;

  const CliRun other = kernelevo(dir, env, common + "--budget 2 --compiler clang");
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.err.find("--compiler"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace kev::cuda
