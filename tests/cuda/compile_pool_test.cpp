#include "cuda/compile_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kev::cuda {
namespace {

// Sleeps, and records how many compiles ran at the same time.
class SlowCompiler final : public Compiler {
 public:
  CompileOutput compile(const CompileRequest& request) override {
    const int now = ++running;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --running;
    CompileOutput out;
    out.ok = true;
    out.image = request.kernel_names.at(0);
    return out;
  }
  [[nodiscard]] std::string identity() const override { return "slow 1"; }
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
};

CompileRequest named(const std::string& name) {
  CompileRequest r;
  r.kernel_names = {name};
  return r;
}

TEST(CompilePool, CompilesInParallelAndKeepsEachResultWithItsRequest) {
  SlowCompiler slow;
  std::vector<std::future<CompileOutput>> futures;
  {
    CompilePool pool(slow, 4);
    EXPECT_EQ(pool.threads(), 4u);
    for (int i = 0; i < 8; ++i) futures.push_back(pool.submit(named("k" + std::to_string(i))));
    for (int i = 0; i < 8; ++i) EXPECT_EQ(futures[i].get().image, "k" + std::to_string(i));
  }
  EXPECT_EQ(slow.peak.load(), 4);
}

TEST(CompilePool, CallbacksRun) {
  SlowCompiler slow;
  std::atomic<int> done{0};
  CompilePool pool(slow, 2);
  for (int i = 0; i < 5; ++i) {
    pool.submit(named("k"), [&done](CompileOutput out) {
      if (out.ok) ++done;
    });
  }
  // Queued after the callbacks: when it is done, they have at least started.
  auto last = pool.submit(named("last"));
  EXPECT_TRUE(last.get().ok);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (done.load() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(done.load(), 5);
  EXPECT_LE(slow.peak.load(), 2);
}

TEST(CompilePool, ShuttingDownCancelsQueuedRequestsButKeepsEveryPromise) {
  SlowCompiler slow;
  std::vector<std::future<CompileOutput>> futures;
  const auto start = std::chrono::steady_clock::now();
  {
    CompilePool pool(slow, 1);
    for (int i = 0; i < 20; ++i) futures.push_back(pool.submit(named("k" + std::to_string(i))));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the first one is running
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(elapsed, 1.0);  // not 20 x 100 ms
  int compiled = 0;
  int cancelled = 0;
  for (auto& f : futures) {
    const auto out = f.get();  // no broken promise
    if (out.ok) {
      ++compiled;
    } else {
      ++cancelled;
      EXPECT_NE(out.log.find("not compiled"), std::string::npos) << out.log;
    }
  }
  EXPECT_GE(compiled, 1);
  EXPECT_GE(cancelled, 15);
}

TEST(CompilePool, DefaultsToTheHardwareConcurrency) {
  SlowCompiler slow;
  CompilePool pool(slow);
  EXPECT_EQ(pool.threads(), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace kev::cuda
