// --timeout of tune, check and compare: one evaluation's limit (its reference's runs included),
// read and checked before any GPU is touched.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.h"

namespace {

const std::string kFixtures = KERNELEVO_FIXTURES;

kev::test_support::CommandRun tune(const std::string& args) {
  return kev::test_support::run_kernelevo("tune specs/softmax.cu " + args, kFixtures);
}

bool built_without_cuda(const kev::test_support::CommandRun& run) {
  return run.err.find("built without CUDA") != std::string::npos;
}

TEST(TimeoutOption, NothingTooLongAndMalformedAreUsageErrors) {
  for (const char* bad : {"0s", "2h", "abc", "-5s", "nan", "inf"}) {
    const auto run = tune(std::string("--timeout ") + bad);
    if (built_without_cuda(run)) GTEST_SKIP() << "built without CUDA";
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_NE(run.err.find("--timeout"), std::string::npos) << bad << ": " << run.err;
  }
}

TEST(TimeoutOption, ADurationIsAccepted) {
  for (const char* good : {"90s", "5m", "1h"}) {
    const auto run = tune(std::string("--timeout ") + good);
    if (built_without_cuda(run)) GTEST_SKIP() << "built without CUDA";
    // Without a GPU the run stops at the device, past the options.
    EXPECT_EQ(run.err.find("--timeout"), std::string::npos) << good << ": " << run.err;
  }
}

// check and compare measure the winners on the spec's problems, references included: a tune
// that needed a longer limit needs it there too.
TEST(TimeoutOption, CheckAndCompareTakeItToo) {
  for (const std::string command :
       {"check specs/softmax.cu", "compare --base HEAD specs/softmax.cu"}) {
    const auto bad = kev::test_support::run_kernelevo(command + " --timeout 0s", kFixtures);
    EXPECT_EQ(bad.exit_code, 2) << command << ": " << bad.err;
    EXPECT_NE(bad.err.find("--timeout 0s: expected 1s to 1h"), std::string::npos)
        << command << ": " << bad.err;
    const auto good = kev::test_support::run_kernelevo(command + " --timeout 2m", kFixtures);
    EXPECT_EQ(good.err.find("--timeout"), std::string::npos) << command << ": " << good.err;
  }
}

}  // namespace
