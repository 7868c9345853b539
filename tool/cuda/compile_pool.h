#pragma once
// Compiles several requests at once on CPU threads, ahead of the GPU.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/compiler.h"

namespace kev::cuda {

class CompilePool {
 public:
  // `compiler` must be thread-safe (NVRTC, nvcc and the caching decorator are) and outlive
  // the pool. threads = 0: std::thread::hardware_concurrency().
  explicit CompilePool(Compiler& compiler, unsigned threads = 0);
  // Waits for the compiles in progress; requests still queued are not compiled: they
  // complete at once with ok = false and a log saying so (a tuner that stops early does not
  // wait for its prefetched compiles).
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  std::future<CompileOutput> submit(CompileRequest request);
  // `done` runs on a pool thread when the compile finishes.
  void submit(CompileRequest request, std::function<void(CompileOutput)> done);

  [[nodiscard]] unsigned threads() const { return static_cast<unsigned>(workers_.size()); }
  [[nodiscard]] std::size_t queued() const;

 private:
  void work();

  Compiler& compiler_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void(bool cancelled)>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace kev::cuda
