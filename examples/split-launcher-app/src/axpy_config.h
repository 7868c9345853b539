#pragma once
// The kernel's tuning parameters as its launcher (launch.cpp) reads them: the defaults of
// axpy.cu, small on purpose (32-thread blocks cap the threads an SM runs). A build through
// kernelevo_optimize gives launch.cpp the tuned values instead, the kernel's.
#ifndef AXPY_BLOCK
#define AXPY_BLOCK 32
#endif
#ifndef AXPY_ITEMS
#define AXPY_ITEMS 1
#endif
