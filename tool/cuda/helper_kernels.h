#pragma once
// Kernels the runner itself needs on the device, compiled once per process with NVRTC:
// seeded input generation, elementwise comparison (so verification of large outputs never
// leaves the GPU), a read-only bandwidth probe, one that returns lines to the L2's normal
// eviction priority, and a kernel that evicts other kernels' code from the SMs' instruction
// caches.
#include <cuda.h>

#include <string>

#include "core/result.h"

namespace kev::cuda {

// Init kinds the fill kernel knows: InitKind's values, plus a decoy (finite random values).
inline constexpr int kFillDecoy = 6;

// Device-side counters the compare kernel fills.
struct CompareCounters {
  unsigned long long mismatches = 0;
  unsigned long long unwritten = 0;
  unsigned long long non_finite = 0;
  unsigned long long first_bad = ~0ull;
  unsigned long long max_abs_error_bits = 0;  // a non-negative double's bits
};

class HelperKernels {
 public:
  // Compiles and loads them into the current context.
  static Result<HelperKernels> load(const std::string& arch);
  CUmodule module = nullptr;
  CUfunction fill =
      nullptr;  // (u8* dst, u64 n, int type, int kind, double low, double value, u64 seed)
  CUfunction compare = nullptr;    // (ref, got, u64 n, int type, double rtol, double atol, unsigned
                                   // poison, int check_poison, CompareCounters*)
  CUfunction read = nullptr;       // (const float4* x, u64 n4, float* sink)
  CUfunction demote_l2 = nullptr;  // (const char* p, u64 bytes): p's L2 lines to evict_normal
  // Its own module: 256 KiB of straight-line code, compiled once and kept in the compile cache.
  CUmodule code_module = nullptr;
  CUfunction evict_code = nullptr;  // (float* sink), one warp per block, kEvictCodeBlocksPerSm
                                    // blocks per SM
};

inline constexpr int kEvictCodeBlocksPerSm = 2;

// The CUDA C++ source of the helper kernels (for tests and documentation).
[[nodiscard]] const char* helper_kernels_source();
// The source of kev_evict_code, in its own module.
[[nodiscard]] const char* evict_code_source();

}  // namespace kev::cuda
