"""Loads cubins and launches kernels through the CUDA driver API (libcuda.so.1, ctypes), in
the primary context PyTorch uses, so kernels run on torch tensors and torch streams."""

import ctypes
import struct

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5
CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1


class _LaunchAttribute(ctypes.Structure):
    """cuda.h's CUlaunchAttribute: an id padded to 8 bytes, then a 64-byte value union whose
    first words are the cluster dimensions (x, y, z) or the scheduling policy."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]


class _LaunchConfig(ctypes.Structure):
    """cuda.h's CUlaunchConfig."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)),
                ("num_attrs", ctypes.c_uint)]

# The spec's C types of scalar arguments -> how they are passed.
_SCALARS = {
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "int8_t": ctypes.c_int8,
    "int16_t": ctypes.c_int16,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint8_t": ctypes.c_uint8,
    "uint16_t": ctypes.c_uint16,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
}


def _half_bits(value, ctype):
    if ctype == "__half":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 16  # bfloat16, truncated


def scalar_arg(ctype, value):
    """A ctypes value holding `value` as the kernel's scalar parameter of C type `ctype`."""
    if ctype in ("__half", "__nv_bfloat16"):
        return ctypes.c_uint16(_half_bits(float(value), ctype))
    if ctype not in _SCALARS:
        raise ValueError(f"unsupported scalar type {ctype}")
    kind = _SCALARS[ctype]
    return kind(float(value) if kind in (ctypes.c_float, ctypes.c_double) else int(value))


def pointer_arg(address):
    return ctypes.c_uint64(address)


# The spec's C types of tensor-map buffers -> cuda.h's CUtensorMapDataType.
_TENSOR_TYPES = {"uint8_t": 0, "int8_t": 0, "uint16_t": 1, "int16_t": 1, "uint32_t": 2, "int32_t": 3,
                 "uint64_t": 4, "int64_t": 5, "__half": 6, "float": 7, "double": 8, "__nv_bfloat16": 9,
                 "__nv_fp8_e4m3": 0}
_SIZES = {"uint8_t": 1, "int8_t": 1, "uint16_t": 2, "int16_t": 2, "__half": 2, "__nv_bfloat16": 2,
          "uint32_t": 4, "int32_t": 4, "float": 4, "uint64_t": 8, "int64_t": 8, "double": 8,
          "__nv_fp8_e4m3": 1}
_SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}
CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3


def tensor_map_unusable(ctype, address, dims):
    """Why the driver cannot describe a dense tensor of `dims` (innermost first) at `address`,
    or None: kernelevo's runner passes a map of zeros then (core/arg_layout.h's rule)."""
    if any(d < 1 or d > 1 << 32 for d in dims):
        return "a dimension outside 1..2^32"
    stride = _SIZES[ctype]
    for d in dims[:-1]:
        stride *= d
        if stride % 16 or stride >= 1 << 40:
            return "a stride not a multiple of 16 bytes below 2^40"
    return "the buffer's address is not 16-byte aligned" if address % 16 else None


class DriverError(RuntimeError):
    pass


class Driver:
    def __init__(self, device_index=0):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self._check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self._check(self.lib.cuDeviceGet(ctypes.byref(dev), device_index), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self._check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        self._check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self._modules = []  # kept alive with their functions

    def _check(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(msg))
            raise DriverError(f"{what}: {msg.value.decode() if msg.value else 'error'} ({rc})")

    def function(self, image, name):
        """Loads `image` (cubin bytes) and returns its kernel `name`."""
        module = ctypes.c_void_p()
        buffer = ctypes.create_string_buffer(image)
        self._check(self.lib.cuModuleLoadData(ctypes.byref(module), buffer), "cuModuleLoadData")
        self._modules.append(module)
        fn = ctypes.c_void_p()
        self._check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module, name.encode()),
                    f"cuModuleGetFunction({name})")
        return fn

    def tensor_map(self, ctype, address, dims, box, swizzle):
        """A 128-byte CUtensorMap over the dense tensor of `dims` (elements, innermost first) at
        `address`, as kernelevo's runner encodes it (no interleave, zeros out of bounds, 256-byte
        L2 promotion); all zeros where the driver cannot describe the tensor."""
        out = (ctypes.c_uint64 * 16)()
        if tensor_map_unusable(ctype, address, dims):
            return out
        rank = len(dims)
        strides, stride = [], _SIZES[ctype]
        for d in dims[:-1]:
            stride *= d
            strides.append(stride)
        self._check(self.lib.cuTensorMapEncodeTiled(
            ctypes.byref(out), _TENSOR_TYPES[ctype], ctypes.c_uint(rank), ctypes.c_void_p(address),
            (ctypes.c_uint64 * rank)(*dims), (ctypes.c_uint64 * max(rank - 1, 1))(*strides),
            (ctypes.c_uint32 * rank)(*box), (ctypes.c_uint32 * rank)(*([1] * rank)), 0,
            _SWIZZLES[swizzle], CU_TENSOR_MAP_L2_PROMOTION_L2_256B, 0), "cuTensorMapEncodeTiled")
        return out

    def allow_dynamic_shared(self, fn, nbytes):
        """Dynamic shared memory above 48 KiB must be allowed per function."""
        if nbytes > 48 * 1024:
            self._check(self.lib.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                    ctypes.c_int(nbytes)),
                        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")

    def launcher(self, fn, grid, block, shared_bytes, stream, args, cluster=1):
        """A no-argument callable that launches `fn` with `args` (ctypes values) on `stream`
        (a CUstream handle as an int); the argument array is built once. With `cluster` > 1
        (Triton's num_ctas) the grid counts clusters of that many CTAs along x, launched as
        Triton's launcher does (cuLaunchKernelEx, a cluster dimension, the spread policy)."""
        grid = list(grid) + [1] * (3 - len(grid))
        block = list(block) + [1] * (3 - len(block))
        holders = list(args)
        params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        lib, check = self.lib, self._check
        stream = ctypes.c_void_p(stream)
        if cluster > 1:
            attrs = (_LaunchAttribute * 2)()
            attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attrs[0].value[0:3] = [cluster, 1, 1]
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
            attrs[1].value[0] = CU_CLUSTER_SCHEDULING_POLICY_SPREAD
            config = _LaunchConfig((ctypes.c_uint * 3)(grid[0] * cluster, grid[1], grid[2]),
                                   (ctypes.c_uint * 3)(*block), shared_bytes, stream, attrs, 2)

            def launch_clusters():
                rc = lib.cuLaunchKernelEx(ctypes.byref(config), fn, params, None)
                if rc != 0:
                    check(rc, "cuLaunchKernelEx")

            launch_clusters.keep_alive = (holders, params, attrs, config)
            return launch_clusters

        def launch():
            rc = lib.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                    ctypes.c_uint(shared_bytes), stream, params, None)
            if rc != 0:
                check(rc, "cuLaunchKernel")

        launch.keep_alive = (holders, params)
        return launch
