// Prints the configuration the launcher used and its timing of the kernel.
#include <cstdio>

#include "axpy.h"

int main() {
  const int n = 1 << 24;
  const AxpyRun run = run_axpy(n, 200);
  if (run.error) {
    std::printf("axpy: CUDA error: %s (block %d, items %d)\n", run.error, run.block, run.items);
    return 1;
  }
  const double gbps = 3.0 * 4.0 * n / (run.microseconds * 1e3);
  std::printf("axpy n=%d: block %d, items %d, grid %d: %.2f us (median of 200), %.0f GB/s, %s\n", n,
              run.block, run.items, run.grid, run.microseconds, gbps,
              run.correct ? "matches the CPU" : "WRONG RESULT");
  return run.correct ? 0 : 1;
}
