// Spec spaces of 10^7 points: counting, enumerating and sampling without materialising.
#include <benchmark/benchmark.h>

#include "core/spec_space.h"

namespace {

kev::ParamSpec param(const char* name, int n) {
  kev::ParamSpec p;
  p.name = name;
  for (int i = 0; i < n; ++i) p.values.emplace_back(i + 1);
  return p;
}

// 100 x 100 x 1000 = 10^7 points; one constraint prunes on the first two parameters, the
// other needs all three and a problem dimension.
kev::KernelSpec big_spec() {
  kev::KernelSpec spec;
  spec.params = {param("A", 100), param("B", 100), param("C", 1000)};
  spec.constraints = {kev::Expr::parse("A * B <= 2500", {"bench", 1, 1}).value(),
                      kev::Expr::parse("(A + C) % 7 != n % 7", {"bench", 1, 1}).value()};
  return spec;
}

std::vector<kev::Problem> problems() { return {kev::Problem{{{"n", 3}}, {}}}; }

void BM_SpaceCount10M(benchmark::State& state) {
  const kev::KernelSpec spec = big_spec();
  for (auto _ : state) {
    kev::SpecSpace space(spec, problems());  // fresh: size() caches
    benchmark::DoNotOptimize(space.size());
  }
  state.counters["points"] = 1e7;
}
BENCHMARK(BM_SpaceCount10M)->Unit(benchmark::kMillisecond);

void BM_SpaceForEach10M(benchmark::State& state) {
  const kev::KernelSpec spec = big_spec();
  const kev::SpecSpace space(spec, problems());
  for (auto _ : state) {
    std::uint64_t sum = 0;
    space.for_each([&](const kev::Point& p) {
      sum += p[2];
      return true;
    });
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_SpaceForEach10M)->Unit(benchmark::kMillisecond);

void BM_SpaceSample10M(benchmark::State& state) {
  const kev::KernelSpec spec = big_spec();
  const kev::SpecSpace space(spec, problems());
  kev::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(space.sample(rng));
}
BENCHMARK(BM_SpaceSample10M);

void BM_SpaceContains(benchmark::State& state) {
  const kev::KernelSpec spec = big_spec();
  const kev::SpecSpace space(spec, problems());
  const kev::Point p{10, 20, 500};
  for (auto _ : state) benchmark::DoNotOptimize(space.contains(p));
}
BENCHMARK(BM_SpaceContains);

}  // namespace
