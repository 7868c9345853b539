#pragma once
// Shared by the kernel and its launchers.
#ifndef SCALE_BLOCK
#define SCALE_BLOCK 256
#endif
