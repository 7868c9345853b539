"""The runtime of a package written by `kernelevo export --torch` (docs/torch-export.md).

A kernelevo project file, copied into every package unchanged: the package's own data is
kernel.json (the spec's arguments, launch geometry and tolerance, and per architecture the
locked winners' cubins) and the cubins beside it; nothing of the spec or the lockfile is ever
Python code. At import the operator is registered with torch.library.custom_op (with a fake
for torch.compile); a call checks every tensor against the spec, reads the problem sizes off
the tensors, picks the cubin of the GPU's architecture (and of the size's bucket), and
launches it through the CUDA driver API (ctypes) in PyTorch's primary context and current
stream. No compiler is needed: the cubins were compiled at export.

The checks and the geometry need no torch and no GPU (`Kernel.prepare` works on anything with
`shape`, `dtype`, `numel()` and `is_contiguous()`); the driver is behind `set_backend`, so
tests can fake it.
"""

import hashlib
import inspect
import json
import math
import os
import threading

from . import _buckets
from . import _cuda_launch as cuda_launch
from . import _spec_expr as spec_expr

FORMAT = 1
PLAN_CACHE_SIZE = 256  # distinct (shapes, architecture) calls kept per kernel

# The spec's C types -> torch dtype names, and the dtypes accepted for them (the unsigned
# types are passed by their bytes: PyTorch computes little with them).
DTYPES = {
    "float": ("float32", ("float32",)),
    "double": ("float64", ("float64",)),
    "__half": ("float16", ("float16",)),
    "__nv_bfloat16": ("bfloat16", ("bfloat16",)),
    "int8_t": ("int8", ("int8",)),
    "int16_t": ("int16", ("int16",)),
    "int32_t": ("int32", ("int32",)),
    "int64_t": ("int64", ("int64",)),
    "uint8_t": ("uint8", ("uint8",)),
    "uint16_t": ("int16", ("int16", "uint16")),
    "uint32_t": ("int32", ("int32", "uint32")),
    "uint64_t": ("int64", ("int64", "uint64")),
    "__nv_fp8_e4m3": ("float8_e4m3fn", ("float8_e4m3fn",)),
}


class KernelArgumentError(ValueError):
    """A call whose arguments do not fit the spec; the message names the kernel and argument."""


class PackageError(RuntimeError):
    """The package cannot run here (no cubin for this GPU, a damaged file)."""


_TENSOR_TYPES = set()  # types whose objects have shape, dtype, numel() and is_contiguous()
_DTYPE_NAMES = {}


def dtype_name(dtype):
    """torch.float32 -> "float32" (also for anything whose str() is "torch.<name>")."""
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):
        pass
    text = str(dtype)
    name = text[len("torch."):] if text.startswith("torch.") else text
    try:
        _DTYPE_NAMES[dtype] = name
    except TypeError:  # an unhashable stand-in
        pass
    return name


def _shape_text(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _group_text(group):
    dim, factor = group
    if not dim:
        return str(factor)
    return dim if factor == 1 else f"{factor}*{dim}"


def _groups_text(groups):
    return "(" + ", ".join(_group_text(g) for g in groups) + ")"


def _prod(values):
    out = 1
    for v in values:
        out = out * v
    return out


def axis_group_sizes(shape, ngroups):
    """The sizes of `ngroups` axis groups of `shape` matched from the right, the first group
    taking the product of the leading axes; None when there are fewer axes than groups (a
    single group is always the element count)."""
    shape = tuple(shape)
    if ngroups == 1:
        return [_prod(shape)]
    if len(shape) < ngroups:
        return None
    lead = len(shape) - ngroups + 1
    return [_prod(shape[:lead])] + list(shape[lead:])


class Prepared:
    """One call, checked: the problem sizes, the chosen image, the launch geometry, the
    kernel's arguments in order and the outputs to allocate."""

    def __init__(self):
        self.dims = {}
        self.names = {}
        self.image = None
        self.grid = self.block = None
        self.shared = 0
        self.values = []  # per spec argument: a tensor, a number, or None for what is allocated
        self.allocate = []  # (index in values, name, shape, dtype name, zero)


class Kernel:
    """The spec of an exported kernel (kernel.json) and the checks of a call."""

    def __init__(self, meta, package_dir):
        if meta.get("format") != FORMAT:
            raise PackageError(f"{package_dir}: kernel.json has format {meta.get('format')!r}; "
                               f"this runtime reads format {FORMAT}")
        self.meta = meta
        self.dir = package_dir
        self.id = meta["kernel"]
        self.args = meta["args"]
        self.by_name = {a["name"]: a for a in self.args}
        self.dim_sources = meta["dims"]
        self.inputs = [a for a in self.args if a["role"] in ("input", "inout")]
        self.outputs = [a for a in self.args if a["role"] == "output"]
        self.inouts = [a for a in self.args if a["role"] == "inout"]
        self.keyword_dims = [d["dim"] for d in self.dim_sources if not d["arg"]]
        self.keywords = [a for a in self.args if a["role"] == "keyword"]
        self._images = {}
        self._plans = {}

    # ------------------------------------------------------------------ the signature

    def parameters(self):
        """(name, kind, default) in the operator's order: tensors positional, then keywords
        (the spec's float and constant scalars, then dimensions no tensor gives)."""
        out = [(a["name"], "tensor", inspect.Parameter.empty) for a in self.inputs]
        for a in self.keywords:
            kind = "float" if a.get("float_default") is not None else "int"
            default = a["float_default"] if kind == "float" else a["int_default"]
            out.append((a["name"], kind, default))
        for d in self.keyword_dims:
            out.append((d, "int", inspect.Parameter.empty))
        return out

    def signature(self, torch):
        params = []
        for name, kind, default in self.parameters():
            annotation = torch.Tensor if kind == "tensor" else (float if kind == "float" else int)
            pkind = (inspect.Parameter.POSITIONAL_OR_KEYWORD if kind == "tensor"
                     else inspect.Parameter.KEYWORD_ONLY)
            params.append(inspect.Parameter(name, pkind, default=default, annotation=annotation))
        n = len(self.outputs)
        ret = None if n == 0 else torch.Tensor if n == 1 else tuple.__class_getitem__(
            tuple([torch.Tensor] * n))
        return inspect.Signature(params, return_annotation=ret)

    def bind(self, args, kwargs):
        """The call's arguments by name, with the keywords' defaults."""
        names = [p[0] for p in self.parameters()]
        tensors = [a["name"] for a in self.inputs]
        if len(args) > len(tensors):
            raise KernelArgumentError(f"{self.id}: takes {len(tensors)} tensor argument(s) "
                                      f"({', '.join(tensors)}), got {len(args)} positional ones")
        bound = dict(zip(tensors, args))
        for k, v in kwargs.items():
            if k not in names:
                raise KernelArgumentError(f"{self.id}: unknown argument {k!r} (arguments: {', '.join(names)})")
            if k in bound:
                raise KernelArgumentError(f"{self.id}: argument {k!r} given twice")
            bound[k] = v
        for name, kind, default in self.parameters():
            if name not in bound:
                if default is inspect.Parameter.empty:
                    what = ("the tensor" if kind == "tensor" else
                            "the problem dimension (no tensor's shape gives it)")
                    raise KernelArgumentError(f"{self.id}: missing argument {name!r}, {what}")
                bound[name] = default
        return bound

    # ------------------------------------------------------------------ checks

    def _check_tensor(self, arg, t):
        name = arg["name"]
        kind = type(t)
        if kind not in _TENSOR_TYPES:  # a type seen to be tensor-like needs no second look
            if not all(hasattr(t, a) for a in ("shape", "dtype", "numel", "is_contiguous")):
                raise KernelArgumentError(f"{self.id}: argument {name!r} must be a tensor, got {kind.__name__}")
            _TENSOR_TYPES.add(kind)
        want, accepted = DTYPES[arg["type"]]
        got = dtype_name(t.dtype)
        if got not in accepted:
            raise KernelArgumentError(
                f"{self.id}: tensor {name!r} must have dtype torch.{want} (the spec's {arg['type']}), "
                f"got torch.{got}")
        if not t.is_contiguous():
            raise KernelArgumentError(
                f"{self.id}: tensor {name!r} must be contiguous (the kernel reads it as a flat "
                f"{arg['type']} array); pass {name}.contiguous()")

    def _problem_dims(self, bound):
        dims, lead = {}, {}
        for src in self.dim_sources:
            d = src["dim"]
            if not src["arg"]:
                v = bound[d]
                if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
                    raise KernelArgumentError(f"{self.id}: problem dimension {d!r} must be an int, got {v!r}")
                if v < 0:
                    raise KernelArgumentError(f"{self.id}: problem dimension {d!r} must not be negative, got {v}")
                dims[d] = v
                continue
            arg = self.by_name[src["arg"]]
            t = bound[arg["name"]]
            groups = arg["groups"]
            sizes = axis_group_sizes(t.shape, len(groups))
            if sizes is None:
                raise KernelArgumentError(
                    f"{self.id}: tensor {arg['name']!r} must have at least {len(groups)} dimensions "
                    f"{_groups_text(groups)} (its count is {arg['count']}), got shape {_shape_text(t.shape)}")
            size = sizes[src["group"]]
            factor = groups[src["group"]][1]
            if size % factor != 0:
                raise KernelArgumentError(
                    f"{self.id}: tensor {arg['name']!r} of shape {_shape_text(t.shape)}: axis group "
                    f"{_group_text(groups[src['group']])} has size {size}, not a multiple of {factor}")
            dims[d] = size // factor
            if src["group"] == 0 and len(groups) > 1:
                lead[d] = tuple(t.shape[:len(t.shape) - len(groups) + 1])
        return dims, lead

    def _check_counts(self, bound, names, dims):
        where = ", ".join(f"{k}={v}" for k, v in dims.items())
        for arg in self.inputs:
            t = bound[arg["name"]]
            want = spec_expr.evaluate(arg["count"], names)
            if t.numel() != want:
                raise KernelArgumentError(
                    f"{self.id}: tensor {arg['name']!r} has {t.numel()} elements (shape "
                    f"{_shape_text(t.shape)}); the spec's count {arg['count']} is {want} at {where}")
            groups = arg["groups"]
            sizes = axis_group_sizes(t.shape, len(groups)) if len(groups) > 1 else None
            if sizes is not None:
                expect = [f * dims[g] if g else f for g, f in groups]
                if sizes != expect:
                    raise KernelArgumentError(
                        f"{self.id}: tensor {arg['name']!r} of shape {_shape_text(t.shape)} does not "
                        f"match {_groups_text(groups)} at {where}")

    def output_shape(self, arg, bound, dims, lead, names):
        """An output's shape: that of the first tensor with the same count expression (and at
        least as many axes as its groups), else its axis groups (the first expanded to the leading axes it was read from), else flat."""
        groups = arg["groups"]
        for a in self.inputs:
            shape = tuple(bound[a["name"]].shape)
            if a["count"] == arg["count"] and (len(groups) < 2 or len(shape) >= len(groups)):
                return shape
        if groups:
            shape = [f * dims[g] if g else f for g, f in groups]
            first = groups[0]
            if first[0] and first[1] == 1 and first[0] in lead:
                return tuple(lead[first[0]]) + tuple(shape[1:])
            return tuple(shape)
        return (spec_expr.evaluate(arg["count"], names),)

    # ------------------------------------------------------------------ images

    def archs(self):
        return sorted(self.meta["archs"])

    def arch_entry(self, arch):
        """The exported architecture a GPU of `arch` ("sm_90") runs: its own, else the nearest
        lower minor of the same major (cubins run on later minors), portable ones only."""
        table = self.meta["archs"]
        if arch in table:
            return table[arch]
        if arch + "a" in table:  # built for this very architecture's own features
            return table[arch + "a"]
        major, minor = int(arch[3:-1]), int(arch[-1])
        for m in range(minor, -1, -1):
            if f"sm_{major}{m}" in table:
                return table[f"sm_{major}{m}"]
        raise PackageError(
            f"{self.id}: this package holds cubins for {', '.join(self.archs())}, not for this GPU's "
            f"{arch}; export it again with --archs {arch}")

    def variant(self, arch, dims, reference=False):
        entry = self.arch_entry(arch)
        if reference:
            return entry["reference"]
        variants = entry["variants"]
        if entry.get("by"):
            i = _buckets.bucket_index([tuple(v["bucket"]) for v in variants], dims[entry["by"]])
            return variants[i]
        return variants[0]

    def image(self, image):
        """The bytes of an image entry (read once, checked against its sha256)."""
        path = image["cubin"]
        if path not in self._images:
            full = os.path.join(self.dir, *path.split("/"))
            with open(full, "rb") as f:
                data = f.read()
            if "sha256:" + hashlib.sha256(data).hexdigest() != image["sha256"]:
                raise PackageError(f"{full}: the cubin does not match kernel.json's sha256 (damaged or edited)")
            self._images[path] = data
        return self._images[path]

    # ------------------------------------------------------------------ a call

    def prepare(self, bound, arch=None, reference=False, check_counts=True, checked=False):
        """Checks a bound call and computes what the launch needs; with arch None (the fake),
        only the output shapes. What depends only on the tensors' shapes and the dimension
        arguments (sizes, counts, image, geometry) is computed once per distinct call and
        kept: a call costs a dictionary lookup, not the spec's expressions again. `checked`:
        the caller has checked the tensors (Package.run, before reading their device)."""
        if not checked:
            for arg in self.inputs:
                self._check_tensor(arg, bound[arg["name"]])
        key = self._plan_key(bound, arch, reference, check_counts)
        plan = self._plans.get(key) if key is not None else None
        if plan is None:
            plan = self._plan(bound, arch, reference, check_counts)
            if key is not None:
                if len(self._plans) >= PLAN_CACHE_SIZE:
                    self._plans.clear()
                self._plans[key] = plan
        p = Prepared()
        p.dims, p.names, p.image = plan.dims, plan.names, plan.image
        p.grid, p.block, p.shared = plan.grid, plan.block, plan.shared
        p.allocate = plan.allocate
        p.values = list(plan.values)
        for i, arg in enumerate(self.args):
            role = arg["role"]
            if role in ("input", "inout"):
                p.values[i] = bound[arg["name"]]
            elif role == "keyword":
                v = bound[arg["name"]]
                p.values[i] = float(v) if arg.get("float_default") is not None else int(v)
        return p

    def _plan_key(self, bound, arch, reference, check_counts):
        """The key of a call's plan, or None for a call that is not kept: the fake's (its
        sizes may be torch.compile's symbols, which are not hashable and change meaning)."""
        if arch is None:
            return None
        key = (arch, reference, check_counts,
               tuple(tuple(bound[a["name"]].shape) for a in self.inputs),
               tuple((type(bound[d]), bound[d]) for d in self.keyword_dims))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _plan(self, bound, arch, reference, check_counts):
        """The shape-dependent part of prepare(): a Prepared whose tensor and keyword values
        are left for each call to fill."""
        dims, lead = self._problem_dims(bound)
        p = Prepared()
        p.dims = dims
        params = {}
        if arch is not None:
            p.image = self.variant(arch, dims, reference)
            params = p.image["params"]
        names = dict(dims)
        for k, v in params.items():
            if isinstance(v, int) and not isinstance(v, bool):
                names[k] = v
        p.names = names
        if check_counts:
            self._check_counts(bound, names, dims)
        for i, arg in enumerate(self.args):
            role = arg["role"]
            if role in ("input", "inout", "keyword"):
                p.values.append(None)
            elif role in ("output", "scratch"):
                p.values.append(None)
                if role == "output":
                    shape = self.output_shape(arg, bound, dims, lead, names)
                else:
                    shape = (spec_expr.evaluate(arg["count"], names),) if check_counts else (0,)
                p.allocate.append((i, arg["name"], shape, DTYPES[arg["type"]][0], role == "scratch"))
            elif role == "dim":
                p.values.append(dims[arg["dim"]])
            else:
                p.values.append(spec_expr.evaluate(arg["value"], names) if check_counts else 0)
        if arch is not None:
            launch = self.meta["launch"]
            p.grid = [spec_expr.evaluate(e, names) for e in launch["grid"]]
            p.block = [spec_expr.evaluate(e, names) for e in launch["block"]]
            p.shared = spec_expr.evaluate(launch["shared_bytes"], names) if launch.get("shared_bytes") else 0
        return p


# ---------------------------------------------------------------------- the driver


class CudaBackend:
    """Launches through libcuda.so.1 in PyTorch's primary context and current stream."""

    def __init__(self):
        self._lock = threading.Lock()
        self._drivers = {}  # device index -> cuda_launch.Driver (primary context retained)
        self._functions = {}  # (device index, cubin path) -> CUfunction
        self._archs = {}  # device index -> "sm_90"

    def check_device(self, kernel, tensors):
        devices = set()
        for name, t in tensors.items():
            if getattr(t.device, "type", None) != "cuda":
                raise KernelArgumentError(f"{kernel.id}: tensor {name!r} must be on a CUDA device, got {t.device}")
            devices.add(t.device)
        if len(devices) > 1:
            names = sorted(str(d) for d in devices)
            raise KernelArgumentError(f"{kernel.id}: every tensor must be on one device, got {', '.join(names)}")

    def arch(self, torch, device):
        index = device.index if device.index is not None else torch.cuda.current_device()
        arch = self._archs.get(index)
        if arch is None:
            major, minor = torch.cuda.get_device_capability(index)
            arch = self._archs[index] = f"sm_{major}{minor}"
        return arch

    @staticmethod
    def stream(torch, index):
        """The current stream's handle (PyTorch's raw getter where it has one: the Stream
        object costs microseconds a call)."""
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(index) if raw is not None else torch.cuda.current_stream(index).cuda_stream

    def _function(self, kernel, index, image):
        key = (index, kernel.dir, image["cubin"])
        with self._lock:
            if key not in self._functions:
                if index not in self._drivers:
                    self._drivers[index] = cuda_launch.Driver(index)
                driver = self._drivers[index]
                fn = driver.function(kernel.image(image), image["function"])
                self._functions[key] = (driver, fn, set())
            return self._functions[key]

    def launch(self, torch, kernel, device, prepared, args, values):
        """Launches the prepared call: `args` the kernel's arguments as ctypes values, `values`
        the same as tensors and numbers (what a fake backend computes with)."""
        index = device.index if device.index is not None else torch.cuda.current_device()
        driver, fn, allowed = self._function(kernel, index, prepared.image)
        if prepared.shared > 48 * 1024 and prepared.shared not in allowed:
            driver.allow_dynamic_shared(fn, prepared.shared)
            allowed.add(prepared.shared)
        lib = driver.lib
        driver._check(lib.cuCtxSetCurrent(driver.ctx), "cuCtxSetCurrent")
        grid = list(prepared.grid) + [1] * (3 - len(prepared.grid))
        block = list(prepared.block) + [1] * (3 - len(prepared.block))
        params = (cuda_launch.ctypes.c_void_p * len(args))(*[cuda_launch.ctypes.addressof(a) for a in args])
        stream = self.stream(torch, index)
        rc = lib.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                cuda_launch.ctypes.c_uint(prepared.shared), cuda_launch.ctypes.c_void_p(stream),
                                params, None)
        if rc != 0:
            driver._check(rc, f"cuLaunchKernel({kernel.id})")


_backend = CudaBackend()


def set_backend(backend):
    """Replaces the driver layer (tests); returns the previous one."""
    global _backend
    previous, _backend = _backend, backend
    return previous


def get_backend():
    return _backend


# ---------------------------------------------------------------------- the package


class Package:
    """What a package's __init__ exposes: the operator, the reference, the spec."""

    def __init__(self, kernel, torch):
        self.kernel = kernel
        self.torch = torch
        self.op = None
        if torch is not None:
            self.op = self._register()

    def run(self, bound, reference=False):
        """Checks and launches one call; returns the outputs (None, one tensor or a tuple)."""
        torch, kernel = self.torch, self.kernel
        tensors = {a["name"]: bound[a["name"]] for a in kernel.inputs}
        for arg in kernel.inputs:
            kernel._check_tensor(arg, tensors[arg["name"]])
        backend = _backend
        backend.check_device(kernel, tensors)
        device = next(iter(tensors.values())).device if tensors else torch.device("cuda", torch.cuda.current_device())
        prepared = kernel.prepare(bound, backend.arch(torch, device), reference, checked=True)
        values = list(prepared.values)
        outputs = []
        for i, name, shape, dtype, zero in prepared.allocate:
            make = torch.zeros if zero else torch.empty
            t = make(shape, dtype=getattr(torch, dtype), device=device)
            values[i] = t
            if not zero:
                outputs.append(t)
        if all(g > 0 for g in prepared.grid) and all(b > 0 for b in prepared.block):
            args = []
            for arg, v in zip(kernel.args, values):
                if arg["pointer"]:
                    args.append(cuda_launch.pointer_arg(v.data_ptr()))
                else:
                    args.append(cuda_launch.scalar_arg(arg["type"], v))
            backend.launch(torch, kernel, device, prepared, args, values)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def call(self, *args, **kwargs):
        return self.run(self.kernel.bind(args, kwargs))

    def reference(self, *args, **kwargs):
        """The spec's reference kernel on the same arguments (its cubin, the source defaults'
        launch geometry): what the package's test compares the operator with."""
        return self.run(self.kernel.bind(args, kwargs), reference=True)

    def fake(self, bound):
        """Outputs of the right shape, dtype and device, for torch.compile's tracing."""
        torch, kernel = self.torch, self.kernel
        prepared = kernel.prepare(bound, None, check_counts=False)
        device = next(iter(bound[a["name"]] for a in kernel.inputs)).device if kernel.inputs else "cuda"
        outs = [torch.empty(shape, dtype=getattr(torch, dtype), device=device)
                for _, _, shape, dtype, zero in prepared.allocate if not zero]
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _register(self):
        torch, kernel = self.torch, self.kernel
        sig = kernel.signature(torch)
        package = self

        def impl(*args, **kwargs):
            return package.run(kernel.bind(args, kwargs))

        def fake(*args, **kwargs):
            return package.fake(kernel.bind(args, kwargs))

        for fn in (impl, fake):
            fn.__signature__ = sig
            fn.__name__ = kernel.id
            fn.__doc__ = f"{kernel.id}, exported by kernelevo from {kernel.meta['source']}"
        op = torch.library.custom_op(f"kernelevo::{kernel.id}", impl,
                                     mutates_args=tuple(a["name"] for a in kernel.inouts))
        op.register_fake(fake)
        return op


def load_meta(package_dir):
    with open(os.path.join(package_dir, "kernel.json"), encoding="utf-8") as f:
        return json.load(f)


def load_package(package_file):
    """The Package of the package whose __init__.py is `package_file`. Without torch, the
    operator is None and only the checks can run."""
    package_dir = os.path.dirname(os.path.abspath(package_file))
    kernel = Kernel(load_meta(package_dir), package_dir)
    try:
        import torch
    except ImportError:
        torch = None
    return Package(kernel, torch)


def allclose_report(got, want, rtol, atol):
    """(ok, max abs error, mismatches) of the spec's rule |got - want| <= atol + rtol*|want|,
    NaN and Inf matching only their own kind."""
    g, w = got.double().reshape(-1), want.double().reshape(-1)
    finite = w.isfinite()
    err = (g - w).abs()
    bad = finite & ~(err <= atol + rtol * w.abs())
    bad = bad | (~finite & ~((g.isnan() & w.isnan()) | (g == w)))
    max_err = float(err[finite].max()) if bool(finite.any()) else 0.0
    return not bool(bad.any()), (max_err if not math.isnan(max_err) else float("inf")), int(bad.sum())
