// The softmax launcher users call when the build dispatches by problem size: the variant of
// softmax.cu compiled for the bucket of `cols` (a size outside every bucket takes the
// nearest bucket's). Without kernelevo's dispatch (the tuner, a build without kernelevo),
// softmax.cu defines softmax_rows_launch itself and this file is empty.
#include "kernels.h"

#ifdef KERNELEVO_VARIANTS_softmax_rows
#define DECLARE_VARIANT(k)                                                                         \
  extern "C" LaunchConfig softmax_rows_launch_kev##k(const float* x, float* y, int rows, int cols, \
                                                     cudaStream_t stream);
KERNELEVO_VARIANTS_softmax_rows(DECLARE_VARIANT)

    extern "C" LaunchConfig
    softmax_rows_launch(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  switch (kernelevo::dispatch::softmax_rows(cols)) {
#define CALL_VARIANT(k) \
  case k:               \
    return softmax_rows_launch_kev##k(x, y, rows, cols, stream);
    KERNELEVO_VARIANTS_softmax_rows(CALL_VARIANT)
  }
  return LaunchConfig{};
}
#endif
