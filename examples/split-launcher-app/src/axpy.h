#pragma once
// Times the axpy kernel on the current GPU (launch.cpp) and checks its result on the CPU.
struct AxpyRun {
  int block = 0;  // the configuration launched
  int items = 0;
  int grid = 0;
  double microseconds = 0;  // median of the timed launches
  bool correct = false;
  const char* error = nullptr;  // a CUDA error, or null
};

AxpyRun run_axpy(int n, int launches);
