// Expression evaluation: by name lookup (what one-off evaluations use) and through bound
// slots (what counting and sampling spaces use).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "core/expr.h"

namespace {

kev::Expr parse(const char* text) { return kev::Expr::parse(text, {"bench", 1, 1}).value(); }

void BM_ExprParse(benchmark::State& state) {
  for (auto _ : state) {
    auto e = kev::Expr::parse(
        "ceil_div(rows, BLOCK / THREADS) * THREADS <= 65536 && cols % VEC == 0", {"bench", 1, 1});
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_ExprParse);

void BM_ExprEvalLookup(benchmark::State& state) {
  const kev::Expr e = parse("BLOCK * VEC <= 4096 && cols % VEC == 0");
  const kev::NameLookup lookup = [](std::string_view name) -> std::optional<std::int64_t> {
    if (name == "BLOCK") return 256;
    if (name == "VEC") return 4;
    return 8192;
  };
  for (auto _ : state) benchmark::DoNotOptimize(e.eval(lookup));
}
BENCHMARK(BM_ExprEvalLookup);

void BM_ExprEvalSlots(benchmark::State& state) {
  const kev::Expr e = parse("BLOCK * VEC <= 4096 && cols % VEC == 0");
  const std::int64_t slots[] = {256, 4, 8192};
  const std::uint32_t slot_of_name[] = {0, 1, 2};
  std::int64_t out = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.eval_slots(slots, slot_of_name, out));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ExprEvalSlots);

}  // namespace
