// A second launcher, compiled by nvcc but not marked.
#include <array>

#include "scale_config.h"

#ifdef SPLIT_EXPECT_BLOCK
static_assert(SCALE_BLOCK == SPLIT_EXPECT_BLOCK, "geometry.cu does not see the kernel's block size");
#endif
#ifdef SPLIT_HOST_CONST
std::array<int, SCALE_BLOCK> geometry_slots{};
#endif

int geometry_threads() {
  const int threads = SCALE_BLOCK;  // a run-time read: the loaded image's value
  return threads;
}
