// Reading lockfiles: a large valid one (kernels by the thousand) and the pathological shape
// that made the duplicate-key guard quadratic (an array of many empty objects). Both must
// grow linearly with the size: compare the times of successive arguments.
#include <benchmark/benchmark.h>

#include <string>

#include "io/lockfile_json.h"

namespace {

const std::string kHash = "sha256:" + std::string(64, 'c');

std::string lockfile_of(int kernels) {
  kev::Lockfile lock;
  kev::LockEntry e;
  e.params = {{"BLOCK", kev::Value(std::int64_t{128})}, {"VEC", kev::Value(std::int64_t{4})}};
  e.time_us = 12.5;
  e.baseline_us = 20.0;
  e.tuned_with = "kernelevo 0.1.0, CUDA 13.0, strategy auto, 200 evaluations";
  for (int i = 0; i < kernels; ++i) {
    const std::string id = "kernel_" + std::to_string(i);
    kev::set_entry(lock, id, "src/" + id + ".cu", kHash, "sm_90", "NVIDIA H200", e);
  }
  return kev::format_lockfile(lock);
}

void BM_ParseLockfile(benchmark::State& state) {
  const std::string text = lockfile_of(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(kev::parse_lockfile(text, "bench.lock.json"));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseLockfile)->Arg(1000)->Arg(4000)->Arg(16000)->Unit(benchmark::kMillisecond);

void BM_RefuseArrayOfEmptyObjects(benchmark::State& state) {
  std::string text = "{\"source\": [";
  while (text.size() < static_cast<std::size_t>(state.range(0))) text += "{}, ";
  text += "{}]}";
  for (auto _ : state) benchmark::DoNotOptimize(kev::parse_lockfile(text, "bench.lock.json"));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_RefuseArrayOfEmptyObjects)
    ->RangeMultiplier(4)
    ->Range(64 << 10, 4 << 20)
    ->Unit(benchmark::kMillisecond);

}  // namespace
