// `kernelevo tune --timeout`: one evaluation's limit (its reference's runs included), read and
// checked before any GPU is touched.
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

TEST(TuneTimeout, NothingTooLongAndMalformedAreUsageErrors) {
  for (const char* bad : {"0s", "2h", "abc", "-5s", "nan", "inf"}) {
    const auto run = tune(std::string("--timeout ") + bad);
    if (built_without_cuda(run)) GTEST_SKIP() << "built without CUDA";
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_NE(run.err.find("--timeout"), std::string::npos) << bad << ": " << run.err;
  }
}

TEST(TuneTimeout, ADurationIsAccepted) {
  for (const char* good : {"90s", "5m", "1h"}) {
    const auto run = tune(std::string("--timeout ") + good);
    if (built_without_cuda(run)) GTEST_SKIP() << "built without CUDA";
    // Without a GPU the run stops at the device, past the options.
    EXPECT_EQ(run.err.find("--timeout"), std::string::npos) << good << ": " << run.err;
  }
}

}  // namespace
