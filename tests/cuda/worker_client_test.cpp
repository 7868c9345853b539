// The worker's watchdog and restart logic, with fake workers (shell scripts): no GPU needed.
#include "cuda/worker_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "cuda/worker_protocol.h"

namespace kev::cuda {
namespace {

RunRequest small_request(double timeout_seconds) {
  RunRequest r;
  r.spec.id = "k";
  r.spec.kernel = "k";
  r.timing.timeout_seconds = timeout_seconds;
  return r;
}

TEST(WorkerClient, HungWorkerIsKilledByTheWatchdogAndRecordedAsTimeout) {
  WorkerRunner worker({"/bin/sh", "-c", "sleep 30"}, 0.5);
  const auto start = std::chrono::steady_clock::now();
  RunReport report = worker.run(small_request(0.5));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(report.outcome.disposition, Disposition::timeout);
  EXPECT_NE(report.outcome.detail.find("watchdog"), std::string::npos) << report.outcome.detail;
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(worker.running());
  // The next request starts a new worker (which hangs again).
  report = worker.run(small_request(0.2));
  EXPECT_EQ(report.outcome.disposition, Disposition::timeout);
  EXPECT_EQ(worker.restarts(), 1);
}

TEST(WorkerClient, WorkerThatDiesIsRecordedAsCrashedAndRestarted) {
  WorkerRunner worker({"/bin/sh", "-c", "read line; kill -SEGV $$"}, 5.0);
  RunReport report = worker.run(small_request(5.0));
  EXPECT_EQ(report.outcome.disposition, Disposition::crashed);
  EXPECT_NE(report.outcome.detail.find("signal"), std::string::npos) << report.outcome.detail;
  report = worker.run(small_request(5.0));
  EXPECT_EQ(report.outcome.disposition, Disposition::crashed);
  EXPECT_EQ(worker.restarts(), 1);
}

TEST(WorkerClient, AnswersAreDecoded) {
  WorkerResponse answer;
  answer.report.outcome.disposition = Disposition::passed;
  answer.report.outcome.time_us = 12.5;
  answer.device.name = "Fake GPU";
  answer.device.copy_gbps = 1000.0;
  const std::string line = encode_response(answer);
  // A worker that answers every request line with the same response.
  WorkerRunner worker({"/bin/sh", "-c", "while read l; do printf '%s\\n' '" + line + "'; done"},
                      5.0);
  RunReport report = worker.run(small_request(5.0));
  ASSERT_EQ(report.outcome.disposition, Disposition::passed) << report.outcome.detail;
  EXPECT_DOUBLE_EQ(report.outcome.time_us.value_or(0.0), 12.5);
  auto info = worker.device_info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->name, "Fake GPU");
  EXPECT_EQ(worker.restarts(), 0);
}

TEST(WorkerClient, MissingProgramIsAFailureNotAHang) {
  WorkerRunner worker({"/nonexistent/kernelevo-worker"}, 2.0);
  RunReport report = worker.run(small_request(1.0));
  EXPECT_EQ(report.outcome.disposition, Disposition::crashed);
  EXPECT_NE(report.outcome.detail.find("127"), std::string::npos) << report.outcome.detail;
}

}  // namespace
}  // namespace kev::cuda
