#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef TMPL_BLOCK
#define TMPL_BLOCK 128
#endif

// clang-format off
/* @kernelevo
id: tmpl_scale
kernel: tmpl_scale<TMPL_BLOCK>
params:
  TMPL_BLOCK: [64, 128, 256]
problems:
  - {n: 1024}
  - {n: 65536}
args:
  - {name: y, type: "float*", count: "n", init: normal, inout: true}
  - {name: n, type: int, value: n}
launch: {grid: ["ceil_div(n, TMPL_BLOCK)"], block: ["TMPL_BLOCK"]}
dispatch: {by: n, buckets: per_problem}
*/
// clang-format on
template <int B>
__global__ void __launch_bounds__(B) tmpl_scale(float* y, int n) {
  const int i = static_cast<int>(blockIdx.x) * B + static_cast<int>(threadIdx.x);
  if (i < n) y[i] *= 2.0f;
}

// Launches the variant of n's bucket: one instantiation of tmpl_scale per distinct winner.
extern "C" int tmpl_launch(float* y, int n) {
#ifdef KERNELEVO_VARIANTS_tmpl_scale
  return kernelevo::dispatch::tmpl_scale(n, [&](auto variant) {
    constexpr int block = decltype(variant)::TMPL_BLOCK_value;
    tmpl_scale<block><<<(n + block - 1) / block, block>>>(y, n);
    return block;
  });
#else
  tmpl_scale<TMPL_BLOCK><<<(n + TMPL_BLOCK - 1) / TMPL_BLOCK, TMPL_BLOCK>>>(y, n);
  return TMPL_BLOCK;
#endif
}
