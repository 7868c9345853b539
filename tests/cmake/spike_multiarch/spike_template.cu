// A marked kernel template: host code instantiates it, so the host needs the tuned value
// as a compile-time constant. When the built architectures lock different values, the
// generated header refuses to compile instead of launching an instance the loaded device
// image does not hold.
#include <cuda_runtime.h>

#if __has_include(<kernelevo/params.h>)
#include <kernelevo/params.h>
#endif
#ifndef SPIKE_TBLOCK
#define SPIKE_TBLOCK 256
#endif

// clang-format off
/* @kernelevo
id: spike_template
kernel: "spike_template<SPIKE_TBLOCK>"
params:
  SPIKE_TBLOCK: [128, 256, 512]
problems:
  - {n: 1}
args:
  - {name: out, type: "int*", count: "1", output: true}
launch: {grid: ["1"], block: ["SPIKE_TBLOCK"], shared_bytes: "0"}
reference: default
*/
// clang-format on
template <int Block>
__global__ void spike_template(int* out) {
  if (threadIdx.x == 0) out[0] = Block;
}

// Launches the instance the host chose; returns its template argument.
int launch_spike_template(int* out) {
  spike_template<SPIKE_TBLOCK><<<1, SPIKE_TBLOCK>>>(out);
  return SPIKE_TBLOCK;
}
