// The CUDA driver API, loaded at run time. The driver (libcuda.so.1) comes with the GPU's
// kernel module, not with the toolkit, so linking it would stop the binary from starting on
// a machine without a GPU (CPU-only CI, `kernelevo scan`). Each driver function kernelevo
// calls is defined here and forwards to the symbol of the same (versioned) name in the
// driver; without a driver every call fails with CUDA_ERROR_NO_DEVICE-like errors.
#include <cuda.h>
#include <dlfcn.h>

#include <mutex>

#include "cuda/driver.h"

namespace {

void* driver_library() {
  static void* handle = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) handle = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  });
  return handle;
}

void* driver_symbol(const char* name) {
  void* lib = driver_library();
  return lib ? dlsym(lib, name) : nullptr;
}

}  // namespace

namespace kev::cuda {
bool driver_library_found() { return driver_library() != nullptr; }
}  // namespace kev::cuda

#define KEV_STR2(x) #x
#define KEV_STR(x) KEV_STR2(x)
// `name` is expanded first, so cuda.h's renames (cuMemAlloc -> cuMemAlloc_v2) apply both to
// the function defined and to the symbol looked up.
#define KEV_FORWARD(name, params, args)                                      \
  extern "C" CUresult CUDAAPI name params {                                  \
    using Fn = CUresult(CUDAAPI*) params;                                    \
    static const Fn fn = reinterpret_cast<Fn>(driver_symbol(KEV_STR(name))); \
    if (!fn) return CUDA_ERROR_NO_DEVICE;                                    \
    return fn args;                                                          \
  }

KEV_FORWARD(cuInit, (unsigned int flags), (flags))
KEV_FORWARD(cuDriverGetVersion, (int* v), (v))
KEV_FORWARD(cuDeviceGetCount, (int* count), (count))
KEV_FORWARD(cuDeviceGet, (CUdevice * d, int ordinal), (d, ordinal))
KEV_FORWARD(cuDeviceGetName, (char* name, int len, CUdevice d), (name, len, d))
KEV_FORWARD(cuDeviceGetAttribute, (int* pi, CUdevice_attribute attrib, CUdevice d), (pi, attrib, d))
KEV_FORWARD(cuDeviceTotalMem, (size_t * bytes, CUdevice d), (bytes, d))
KEV_FORWARD(cuDeviceGetPCIBusId, (char* id, int len, CUdevice d), (id, len, d))
KEV_FORWARD(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice d), (ctx, d))
KEV_FORWARD(cuDevicePrimaryCtxRelease, (CUdevice d), (d))
KEV_FORWARD(cuCtxSetCurrent, (CUcontext ctx), (ctx))
KEV_FORWARD(cuCtxSynchronize, (void), ())
KEV_FORWARD(cuStreamCreate, (CUstream * s, unsigned int flags), (s, flags))
KEV_FORWARD(cuStreamDestroy, (CUstream s), (s))
KEV_FORWARD(cuStreamQuery, (CUstream s), (s))
KEV_FORWARD(cuStreamSynchronize, (CUstream s), (s))
KEV_FORWARD(cuModuleLoadData, (CUmodule * m, const void* image), (m, image))
KEV_FORWARD(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char* name), (f, m, name))
KEV_FORWARD(cuModuleUnload, (CUmodule m), (m))
KEV_FORWARD(cuFuncSetAttribute, (CUfunction f, CUfunction_attribute a, int v), (f, a, v))
KEV_FORWARD(cuFuncGetAttribute, (int* v, CUfunction_attribute a, CUfunction f), (v, a, f))
KEV_FORWARD(cuLaunchKernel,
            (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
             unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void** params,
             void** extra),
            (f, gx, gy, gz, bx, by, bz, shared, s, params, extra))
KEV_FORWARD(cuLaunchKernelEx,
            (const CUlaunchConfig* config, CUfunction f, void** params, void** extra),
            (config, f, params, extra))
KEV_FORWARD(cuTensorMapEncodeTiled,
            (CUtensorMap * map, CUtensorMapDataType type, cuuint32_t rank, void* address,
             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
             const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
             CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob),
            (map, type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2,
             oob))
KEV_FORWARD(cuMemAlloc, (CUdeviceptr * p, size_t bytes), (p, bytes))
KEV_FORWARD(cuMemFree, (CUdeviceptr p), (p))
KEV_FORWARD(cuMemGetInfo, (size_t * free_bytes, size_t* total), (free_bytes, total))
KEV_FORWARD(cuMemsetD8Async, (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s))
KEV_FORWARD(cuMemsetD16Async, (CUdeviceptr d, unsigned short v, size_t n, CUstream s), (d, v, n, s))
KEV_FORWARD(cuMemsetD32Async, (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s))
KEV_FORWARD(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
            (dst, src, n, s))
KEV_FORWARD(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void* src, size_t n, CUstream s),
            (dst, src, n, s))
KEV_FORWARD(cuMemcpyDtoHAsync, (void* dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s))
KEV_FORWARD(cuMemcpyDtoH, (void* dst, CUdeviceptr src, size_t n), (dst, src, n))
KEV_FORWARD(cuMemcpyHtoD, (CUdeviceptr dst, const void* src, size_t n), (dst, src, n))
KEV_FORWARD(cuEventCreate, (CUevent * e, unsigned int flags), (e, flags))
KEV_FORWARD(cuEventDestroy, (CUevent e), (e))
KEV_FORWARD(cuEventRecord, (CUevent e, CUstream s), (e, s))
KEV_FORWARD(cuEventSynchronize, (CUevent e), (e))
KEV_FORWARD(cuEventElapsedTime, (float* ms, CUevent start, CUevent end), (ms, start, end))
KEV_FORWARD(cuGetErrorName, (CUresult r, const char** s), (r, s))
KEV_FORWARD(cuGetErrorString, (CUresult r, const char** s), (r, s))
