#pragma once
// The C++ a build links for a Triton kernel compiled ahead of time (kernelevo_optimize on a
// marked .py source): the locked configuration's CUBIN for each built architecture as a byte
// array, and a launcher through the CUDA driver API (cuModuleLoadData at the first call in the
// current context, cuLaunchKernel with the spec's grid, 32 * num_warps threads, Triton's
// dynamic shared memory and its trailing null scratch pointers; for num_ctas > 1,
// cuLaunchKernelEx with clusters of that many CTAs along x, as Triton launches them), so the
// program needs no Python at run time. The header declares, for kernel id K:
//
//   CUresult K_launch(CUstream stream, <the spec's args, pointers as const T* / T*>);
//   const char* K_config(void);  // "BLOCK=2048 num_warps=8 num_stages=2 (sm_90)"
//
// A kernel whose spec has `dispatch` may have a winner per bucket of the problem dimension
// `by` for an architecture: each is compiled, and K_launch takes the image of the bucket
// holding the argument carrying `by` (else the nearest bucket's, the lower on a tie), so the
// program calls one function whatever the size; K_config then lists the buckets' configurations.
#include <optional>
#include <string>
#include <vector>

#include "core/buckets.h"
#include "core/evaluation.h"
#include "core/result.h"
#include "core/spec.h"

namespace kev {

struct TritonBuiltImage {
  std::string arch;      // "sm_90"
  std::string image;     // CUBIN
  std::string function;  // the entry symbol
  unsigned block_threads = 128;
  unsigned shared_bytes = 0;
  unsigned trailing_null_pointers = 2;
  unsigned cluster_ctas = 1;  // num_ctas: each program a cluster of this many CTAs along x
  ParamSet params;            // the configuration compiled (shown by K_config)
  // With the spec's `dispatch`: the bucket of `by` this image serves; none: every size.
  std::optional<BucketRange> range;
};

// One kernel's part of the generated files (joined by the two functions below).
struct TritonLauncher {
  std::string header;  // its declarations
  std::string source;  // its images and definitions
};

// An error when the grid cannot be computed from the arguments: each problem dimension the
// grid names (and the dispatch dimension, when images have buckets) must be the value of a
// scalar argument (`{name: rows, value: rows}`). `images` are ordered as built, an
// architecture's buckets in order; the launcher takes the images of the device's
// architecture, else of the highest of the same major version below it.
[[nodiscard]] Result<TritonLauncher> generate_triton_launcher(
    const KernelSpec& spec, const std::vector<TritonBuiltImage>& images);

// The files of one marked .py source (<stem>_triton.h and .cpp) from its kernels' parts.
[[nodiscard]] std::string triton_launcher_header(const std::string& source_name,
                                                 const std::vector<TritonLauncher>& kernels);
[[nodiscard]] std::string triton_launcher_source(const std::string& source_name,
                                                 const std::string& header_name,
                                                 const std::vector<TritonLauncher>& kernels);

}  // namespace kev
