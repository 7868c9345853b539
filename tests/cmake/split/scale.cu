#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#include "scale_config.h"
#ifdef SPLIT_HOST_CONST
#include <array>
#endif

// clang-format off
/* @kernelevo
id: scale
kernel: scale
params:
  SCALE_BLOCK: [128, 256, 512]
problems:
  - {n: 1048576}
args:
  - {name: x, type: "float*", count: "n", init: normal, inout: true}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, SCALE_BLOCK)"], block: ["SCALE_BLOCK"], shared_bytes: "0"}
reference: default
*/
// clang-format on
namespace scale_detail {
constexpr int kBlock = SCALE_BLOCK;  // each architecture's device code gets its own value
static_assert(kBlock % 32 == 0, "SCALE_BLOCK must be a multiple of 32");
}  // namespace scale_detail

extern "C" __global__ void __launch_bounds__(SCALE_BLOCK) scale(float* x, int n) {
  const int i = static_cast<int>(blockIdx.x) * scale_detail::kBlock + static_cast<int>(threadIdx.x);
  if (i < n) x[i] *= 2.0f;
}
#ifdef SPLIT_HOST_CONST
std::array<int, SCALE_BLOCK> scale_slots{};  // host code of the marked source
#endif
#ifdef SPLIT_HOST_DERIVED
int scale_block_on_host() { return scale_detail::kBlock; }  // host code of the marked source
#endif
