// A marked kernel mixing host code (a launcher, <vector>) with device code that needs its
// parameters as compile-time constants (a __shared__ array bound, an unrolled loop).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define SPIKE_STR2(...) #__VA_ARGS__
#define SPIKE_STR(...) SPIKE_STR2(__VA_ARGS__)

#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SPIKE_BLOCK
#define SPIKE_BLOCK 256
#endif
#ifndef SPIKE_VEC
#define SPIKE_VEC 1
#endif

// clang-format off
/* @kernelevo
id: spike_fill
kernel: spike_fill
params:
  SPIKE_BLOCK: [128, 256, 512]
  SPIKE_VEC: [1, 2, 4]
problems:
  - {n: 1024}
args:
  - {name: out, type: "int*", count: "4", output: true}
launch: {grid: ["1"], block: ["SPIKE_BLOCK"], shared_bytes: "0"}
reference: default
*/
// clang-format on
extern "C" __global__ void spike_fill(int* out) {
  __shared__ int tile[SPIKE_BLOCK];  // device code needs a constant in every compile pass
  tile[threadIdx.x] = static_cast<int>(blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) {
#ifdef __CUDA_ARCH__
    out[0] = __CUDA_ARCH__;
#endif
    out[1] = SPIKE_BLOCK;
    out[2] = SPIKE_VEC;
    out[3] = tile[SPIKE_BLOCK - 1];  // the block size the host launched with
  }
}

#ifdef SPIKE_TEMPLATE_LAUNCH
int launch_spike_template(int* out);
#endif

int main() {
  int* out = nullptr;
  if (cudaMalloc(&out, 4 * sizeof(int)) != cudaSuccess) {
    std::fprintf(stderr, "no GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  // Read at run time: the values of the device image the runtime loaded.
  int host_block = SPIKE_BLOCK;
  int host_vec = SPIKE_VEC;
  // A const copy is constant-initialised where it can be: with disagreeing architectures it
  // gets the lowest built architecture's value, not the loaded one (a documented limit).
  const int const_block = SPIKE_BLOCK;
  spike_fill<<<1, SPIKE_BLOCK>>>(out);
  std::vector<int> got(4);
  cudaError_t err = cudaMemcpy(got.data(), out, 4 * sizeof(int), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, spike_fill);
  std::printf("compiled for __CUDA_ARCH_LIST__ " "%s" "\n", SPIKE_STR(__CUDA_ARCH_LIST__));
  std::printf("loaded: ptxVersion %d binaryVersion %d; device __CUDA_ARCH__ %d\n",
              attr.ptxVersion, attr.binaryVersion, got[0]);
  std::printf("device: SPIKE_BLOCK %d SPIKE_VEC %d launched with %d threads\n", got[1], got[2],
              got[3]);
  std::printf("host:   SPIKE_BLOCK %d SPIKE_VEC %d (a const copy holds %d)\n", host_block,
              host_vec, const_block);
  bool agree = got[1] == host_block && got[2] == host_vec && got[3] == host_block;
#ifdef SPIKE_TEMPLATE_LAUNCH
  const int host_tblock = launch_spike_template(out);
  int device_tblock = 0;
  err = cudaMemcpy(&device_tblock, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("template: host instantiated spike_template<%d>, device ran Block %d (%s)\n",
              host_tblock, device_tblock, cudaGetErrorString(err));
  agree = agree && err == cudaSuccess && device_tblock == host_tblock;
#endif
  std::printf("%s\n", agree ? "host and device agree" : "MISMATCH between host and device");
  return agree ? 0 : 1;
}
