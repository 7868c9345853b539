#include "cuda/compile_pool.h"

#include <memory>

namespace kev::cuda {

CompilePool::CompilePool(Compiler& compiler, unsigned threads) : compiler_(compiler) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

std::future<CompileOutput> CompilePool::submit(CompileRequest request) {
  auto promise = std::make_shared<std::promise<CompileOutput>>();
  auto future = promise->get_future();
  submit(std::move(request), [promise](CompileOutput out) { promise->set_value(std::move(out)); });
  return future;
}

void CompilePool::submit(CompileRequest request, std::function<void(CompileOutput)> done) {
  {
    std::lock_guard lock(mutex_);
    jobs_.emplace_back(
        [this, request = std::move(request), done = std::move(done)](bool cancelled) {
          if (!cancelled) {
            done(compiler_.compile(request));
            return;
          }
          CompileOutput out;
          out.log = request.source_path + ": not compiled: the compile pool shut down first";
          done(std::move(out));
        });
  }
  wake_.notify_one();
}

std::size_t CompilePool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void CompilePool::work() {
  for (;;) {
    std::function<void(bool)> job;
    bool cancelled = false;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to do
      job = std::move(jobs_.front());
      jobs_.pop_front();
      cancelled = stopping_;
    }
    job(cancelled);
  }
}

}  // namespace kev::cuda
