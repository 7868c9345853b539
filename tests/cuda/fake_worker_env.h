#pragma once
// The environment, as shell assignments in front of a kernelevo command line, in which
// tests/fake_worker (KERNELEVO_FAKE_WORKER, the path CMake gives the cuda tests) stands in for
// the GPU workers: each run taking `run_ms`, the compile cache in `cache_dir`, then `more`
// (further assignments, NAME='value', space-separated).
#include <string>

namespace kev::cuda::testing {

inline std::string fake_worker_env(int run_ms, const std::string& cache_dir,
                                   const std::string& more = "") {
  std::string env = "KERNELEVO_WORKER_WRAPPER='" + std::string(KERNELEVO_FAKE_WORKER) +
                    "' KERNELEVO_FAKE_RUN_MS=" + std::to_string(run_ms) + " KERNELEVO_CACHE_DIR='" +
                    cache_dir + "'";
  if (!more.empty()) env += " " + more;
  return env;
}

}  // namespace kev::cuda::testing
