#pragma once
// The worker process's loop: reads requests (JSON lines) on stdin, runs them on one GPU
// through the driver-API runner, writes one response line each. Exits after a request that
// left the CUDA context unusable, so its parent starts a fresh worker.
namespace kev::cuda {

// Returns the process exit code.
int serve_worker(int device_index);

}  // namespace kev::cuda
