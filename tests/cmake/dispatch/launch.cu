// The launcher users call: the variant of rows_scale compiled for the problem's bucket.
#include <cuda_runtime.h>

#define DECLARE_VARIANT(k) extern "C" int rows_scale_launch_kev##k(float* y, int rows, int cols);
KERNELEVO_VARIANTS_rows_scale(DECLARE_VARIANT)

    extern "C" int rows_launch(float* y, int rows, int cols) {
  switch (kernelevo::dispatch::rows_scale(cols)) {
#define CALL_VARIANT(k) \
  case k:               \
    return rows_scale_launch_kev##k(y, rows, cols);
    KERNELEVO_VARIANTS_rows_scale(CALL_VARIANT)
  }
  return 0;
}
