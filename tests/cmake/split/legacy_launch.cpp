// An older launcher with its own copy of the block size.
#define SCALE_BLOCK 256

int legacy_grid_size(int n) { return (n + SCALE_BLOCK - 1) / SCALE_BLOCK; }
