// The host side: grid and block from the same SCALE_BLOCK the kernel was built with.
#include <array>

#include "scale_config.h"

#ifdef SPLIT_EXPECT_BLOCK
static_assert(SCALE_BLOCK == SPLIT_EXPECT_BLOCK, "launch.cpp does not see the kernel's block size");
#endif
#ifdef SPLIT_HOST_CONST
std::array<int, SCALE_BLOCK> per_thread_slots{};
#endif

int scale_block_size() { return SCALE_BLOCK; }
int scale_grid_size(int n) { return (n + SCALE_BLOCK - 1) / SCALE_BLOCK; }
