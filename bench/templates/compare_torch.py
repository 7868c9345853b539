#!/usr/bin/env python3
"""Times each tuned template beside its PyTorch equivalent, in one process on the same inputs.

For each template of entries.py and each of its shapes: compiles the template with
`nvcc -cubin` twice (the lockfile's winner as -D flags, a one-size bucket's with
-DKERNELEVO_SIZE_<dim>=<size> as kernelevo compiles it, and no -D: the template's defaults),
launches both through the CUDA driver API on torch tensors in torch's current stream, checks
the output against PyTorch's, and times ours (winner, defaults) and PyTorch's with CUDA events
from a cold, clean L2 (kernelevo's method: a 256 MiB buffer written and read back before every
run), then ours and PyTorch's again with triton.testing.do_bench, whose L2 clearing leaves
dirty lines that the timed run writes back. For the memory-bound templates the same PyTorch code
is also compiled with torch.compile(fn, dynamic=False) per shape (after torch._dynamo.reset()),
checked like ours and timed by both timers. --rounds N (default 3): the first round times every
candidate, the later ones ours, eager and compiled again, every second round in reverse order,
each figure the median of its rounds, so a clock that drifts over the run (power, heat) is
charged to every side alike. Writes OUT/templates.md and OUT/templates.json. A
template that is missing or fails is reported as such, and so is a shape that torch.compile
fails on; the run goes on.

  compare_torch.py --out OUT --kernelevo BIN [--lockfile F] [--devices F] [--no-compile] [--rounds N]
                   [TEMPLATE...]
"""

import argparse
import concurrent.futures
import contextlib
import ctypes
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import entries as entries_mod  # noqa: E402
import results_table  # noqa: E402
import spec_expr  # noqa: E402
from buckets import bucket_distance, bucket_index, size_define  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICE = "cuda"  # where tensors are made; the tests use "cpu"


class Skip(Exception):
    """A template or shape that cannot be measured; the message goes into the table."""


# ---------------------------------------------------------------- spec, lockfile, compile


def load_spec(kernelevo, source, kernel_id, root=ROOT):
    """The spec of `kernel_id` in `source` (relative to `root`), as `kernelevo scan --format
    json` gives it."""
    r = subprocess.run([kernelevo, "scan", source, "--format", "json"], capture_output=True, text=True,
                       cwd=root, timeout=120)
    if r.returncode != 0:
        raise Skip("scan failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    kernels = json.loads(r.stdout)["kernels"]
    for k in kernels:
        if k["id"] == kernel_id:
            return k
    if len(kernels) == 1:
        return kernels[0]
    raise Skip(f"no kernel '{kernel_id}' in {source} (found {', '.join(k['id'] for k in kernels)})")


def lock_entry(lock, kernel_id, arch, device):
    """The lockfile's entry for kernel/arch/device (else the only device's, else the
    architecture's default) and the device key used; (None, None) when there is none."""
    devices = ((lock or {}).get("kernels", {}).get(kernel_id, {}).get("targets", {}).get(arch)) or {}
    if device in devices:
        return devices[device], device
    if len(devices) == 1:
        (name, entry), = devices.items()
        return entry, name
    for name, entry in devices.items():
        if entry.get("default"):
            return entry, name
    return None, None


def range_text(bucket_range):
    """[1024, 1025) or [8192, inf), as kernelevo names a bucket."""
    lo, hi = bucket_range
    return f"[{lo}, {'inf' if hi is None else hi})"


def served_by(entry, dims):
    """What serves a shape from a lockfile entry: {"params": the winner's parameters (None: no
    entry, the source defaults), "bucket": the index of the bucket serving the shape (None
    for an entry without buckets), "label": "cols [1024, 1025)", "inside": whether the shape
    lies in that bucket (False: the nearest bucket's winner, as the build takes it),
    "size_define": the define that winner is compiled with (buckets.size_define: a one-size
    bucket's, also for a shape it serves as the nearest; else None)}."""
    if entry is None:
        return {"params": None, "bucket": None, "label": None, "inside": None, "size_define": None}
    if "buckets" not in entry:
        return {"params": entry.get("params", {}), "bucket": None, "label": None, "inside": None,
                "size_define": None}
    by, buckets = entry.get("by"), entry["buckets"]
    if not buckets:
        raise Skip("the lockfile entry has an empty bucket list")
    if by not in dims:
        raise Skip(f"the lockfile's buckets split {by}, a dimension this shape lacks")
    i = bucket_index([b["range"] for b in buckets], dims[by])
    b = buckets[i]
    return {"params": b.get("params", {}), "bucket": i, "label": f"{by} {range_text(b['range'])}",
            "inside": bucket_distance(b["range"], dims[by]) == 0, "size_define": size_define(by, b["range"], b.get("sized", True))}


def winner_params(lock, kernel_id, arch, device, dims=None):
    """The lockfile's params for kernel/arch/device (lock_entry's lookup) serving a shape of
    `dims` (for an entry with buckets, which refuses to answer without them), and the device
    key used; (None, None) when there is no entry."""
    entry, name = lock_entry(lock, kernel_id, arch, device)
    if entry is None:
        return None, None
    if "buckets" in entry and dims is None:
        raise Skip(f"{kernel_id} has a winner per bucket of {entry.get('by')}; a shape picks one")
    return served_by(entry, dims or {})["params"], name


def winner_sets(entry):
    """The distinct compiles of an entry's winners, in bucket order: (params, size define) per
    distinct pair of a bucket's params and its buckets.size_define (a plain entry: (its params,
    None)), as the build compiles each once; [] for none."""
    if entry is None:
        return []
    if "buckets" in entry:
        sets = [(b.get("params", {}), size_define(entry.get("by"), b["range"], b.get("sized", True)))
                for b in entry["buckets"]]
    else:
        sets = [(entry.get("params", {}), None)]
    out = []
    for p in sets:
        if p not in out:
            out.append(p)
    return out


def define_flags(params):
    out = []
    for name, value in sorted((params or {}).items()):
        out.append(f"-D{name}={repr(value) if isinstance(value, float) else value}")
    return out


def kernel_arch(spec, device_arch):
    """What a kernel is compiled for and locked under: the spec's `arch` (sm_90a for
    wgmma, setmaxnreg or clusters' instructions), else the device's."""
    return spec.get("arch") or device_arch


def nvcc_command(nvcc, source, arch, params, spec, output, defines=()):
    """nvcc's command compiling `source` with `params` as -D flags, the spec's defines and
    `defines` (NAME=VALUE, as a one-size bucket's size define) after them, each in place of a
    spec define of its name, as kernelevo compiles a bucket's winner."""
    source_dir = os.path.dirname(os.path.abspath(source))
    cmd = [nvcc, "-cubin", f"-arch={arch}"]
    if not any(f.startswith(("-std", "--std")) for f in spec.get("flags", [])):
        cmd.append("-std=c++17")
    cmd += define_flags(params)
    own = {d.split("=", 1)[0] for d in defines}
    cmd += ["-D" + d for d in spec.get("defines", []) if d.split("=", 1)[0] not in own] + ["-D" + d for d in defines]
    cmd += ["-I" + source_dir] + ["-I" + os.path.join(source_dir, d) for d in spec.get("include_dirs", [])]
    cmd += list(spec.get("flags", [])) + [source, "-o", output]
    return cmd


def compile_cubin(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        lines = [l for l in (r.stderr or r.stdout).splitlines() if "error" in l] or r.stderr.splitlines()
        raise Skip("nvcc failed: " + (lines[0] if lines else f"exit {r.returncode}"))
    with open(cmd[-1], "rb") as f:
        return f.read()


def find_nvcc():
    for candidate in (os.environ.get("NVCC"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")):
        if candidate and os.path.exists(candidate):
            return candidate
    return "nvcc"


# ---------------------------------------------------------------- launch geometry, buffers


# The GPU's multiprocessor count, the value of `sm_count` in spec expressions (as kernelevo's
# runner gives it); set by use_device_sm_count() once the harness has its GPU.
SM_COUNT = None


def use_device_sm_count(torch):
    global SM_COUNT
    SM_COUNT = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def names_for(dims, params):
    names = dict(dims)
    for k, v in (params or {}).items():
        if isinstance(v, int) and not isinstance(v, bool):
            names[k] = v
    if SM_COUNT is not None:
        names.setdefault("sm_count", SM_COUNT)
    return names


def geometry(spec, names):
    """(grid, block, shared_bytes) of the spec's launch at `names`."""
    launch = spec["launch"]
    grid = [spec_expr.evaluate(e, names) for e in launch["grid"]]
    block = [spec_expr.evaluate(e, names) for e in launch["block"]]
    shared = spec_expr.evaluate(launch["shared_bytes"], names) if launch.get("shared_bytes") else 0
    return grid, block, shared


def cluster_of(spec, names):
    """CTAs per thread-block cluster along x of the spec's launch at `names` (1: none)."""
    expr = spec["launch"].get("cluster")
    return spec_expr.evaluate(expr, names) if expr else 1


def spec_launcher(driver, fn, spec, names, stream, args):
    """(a no-argument launch of `fn` with the spec's geometry at `names`, that geometry). The
    spec's grid counts CTAs; with a cluster the driver's launcher wants it in clusters."""
    grid, block, shared = geometry(spec, names)
    cluster = cluster_of(spec, names)
    driver.allow_dynamic_shared(fn, shared)
    launch = driver.launcher(fn, [grid[0] // cluster] + grid[1:], block, shared, stream, args,
                             cluster=cluster)
    return launch, {"grid": grid, "block": block, "shared_bytes": shared, "cluster": cluster}


def metric_bytes(spec, names):
    expr = (spec.get("metrics") or {}).get("bytes")
    return spec_expr.evaluate(expr, names) if expr else None


def torch_dtype(torch, ctype):
    table = {"float": torch.float32, "double": torch.float64, "__half": torch.float16,
             "__nv_bfloat16": torch.bfloat16, "int8_t": torch.int8, "int16_t": torch.int16,
             "int32_t": torch.int32, "int64_t": torch.int64, "uint8_t": torch.uint8,
             # same bytes; these are only allocated and passed, never computed with
             "uint16_t": torch.int16, "uint32_t": torch.int32, "uint64_t": torch.int64,
             "__nv_fp8_e4m3": getattr(torch, "float8_e4m3fn", None)}
    if table.get(ctype) is None:
        raise Skip(f"unsupported argument type {ctype}")
    return table[ctype]


def fill(torch, arg, count, dtype):
    init, dev = arg.get("init", "normal"), DEVICE
    lo, hi = (arg.get("init_range") or [0, 0])
    if init == "zeros" or arg.get("scratch"):
        return torch.zeros(count, dtype=dtype, device=dev)
    if init == "constant":
        return torch.full((count,), arg.get("init_value", 0.0), device=dev).to(dtype)
    if init == "iota":
        return torch.arange(count, device=dev).to(dtype)
    if init == "randint":  # through float32: integers convert to every float type, fp8 too
        t = torch.randint(int(lo), int(hi), (count,), device=dev)
        return (t.float() if dtype.is_floating_point else t).to(dtype)
    if init == "uniform":
        return (torch.rand(count, device=dev) * (hi - lo) + lo).to(dtype)
    if dtype.is_floating_point:
        return torch.randn(count, device=dev).to(dtype)
    return torch.round(torch.randn(count, device=dev) * 16).to(dtype)


def make_args(torch, spec, dims, param_sets):
    """Every argument by name (pointer arguments as flat tensors, scalars as numbers), the
    output tensors in spec order, and the inout tensors with their initial contents."""
    values, outputs, inouts = {}, [], []
    for arg in spec["args"]:
        if arg.get("tensor_map"):
            continue  # encoded per launch configuration by kernel_args
        if not arg["pointer"]:
            v = arg.get("value")
            values[arg["name"]] = v if isinstance(v, (int, float)) else spec_expr.evaluate(v, dims)
            continue
        count = max(spec_expr.evaluate(arg["count"], names_for(dims, p)) for p in param_sets)
        dtype = torch_dtype(torch, arg["type"])
        t = torch.empty(count, dtype=dtype, device=DEVICE) if arg.get("output") else fill(torch, arg, count, dtype)
        values[arg["name"]] = t
        if arg.get("output") or arg.get("inout"):
            outputs.append((arg, t))
        if arg.get("inout"):
            inouts.append((t, t.clone()))
    return values, outputs, inouts


def kernel_args(spec, values, driver=None, names=None):
    """The kernel's arguments as ctypes values; a tensor map is encoded by `driver` for its
    buffer with its dims and box at `names` (a configuration's)."""
    import cuda_launch

    out = []
    types = {a["name"]: a.get("type") for a in spec["args"]}
    for arg in spec["args"]:
        if arg.get("tensor_map"):
            tm = arg["tensor_map"]
            dims = [spec_expr.evaluate(e, names) for e in tm["dims"]]
            box = [spec_expr.evaluate(e, names) for e in tm["box"]]
            out.append(driver.tensor_map(types[tm["of"]], values[tm["of"]].data_ptr(), dims, box, tm["swizzle"]))
            continue
        v = values[arg["name"]]
        out.append(cuda_launch.pointer_arg(v.data_ptr()) if arg["pointer"] else cuda_launch.scalar_arg(arg["type"], v))
    return out


# ---------------------------------------------------------------- checking and timing


def sync(torch):
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def current_stream(torch):
    return torch.cuda.current_stream().cuda_stream if DEVICE == "cuda" else 0


def poison(torch, t):
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.view(torch.uint8).fill_(0xFF)


def compare(torch, pairs, rtol, atol):
    """(max abs error, agree) over (name, got, want) tensors, compared flat; NaN where PyTorch
    has none gives (NaN, False)."""
    worst, agree = 0.0, True
    for name, got, want in pairs:
        got, want = got.reshape(-1), want.reshape(-1)
        if got.numel() != want.numel():
            raise Skip(f"output {name}: {got.numel()} elements, PyTorch gives {want.numel()}")
        g, w = got.float(), want.float()
        if torch.isnan(g).any() and not torch.isnan(w).any():
            return float("nan"), False
        worst = max(worst, (g - w).abs().max().item() if g.numel() else 0.0)
        agree = agree and bool(torch.allclose(g, w, rtol=rtol, atol=atol))
    return worst, agree


def check(torch, launch, outputs, inouts, expected, rtol, atol):
    """Launches once from poisoned outputs; returns (max abs error, agree)."""
    if len(expected) != len(outputs):
        raise Skip(f"PyTorch gives {len(expected)} outputs, the spec lists {len(outputs)}")
    for arg, t in outputs:
        if not arg.get("inout"):
            poison(torch, t)
    for t, initial in inouts:
        t.copy_(initial)
    launch()
    sync(torch)
    return compare(torch, [(arg["name"], got, want) for (arg, got), want in zip(outputs, expected)], rtol, atol)


def events_timer(torch, rep_ms, before, charge_after=False):
    """fn -> median microseconds over ~rep_ms of runs, CUDA events around fn alone, `before()`
    enqueued before each run. With `charge_after`, `before()` runs once more after each run
    and what it takes beyond its median from a clean state (`before()` twice) is added: the
    write-back of the dirty lines fn left in the L2 (kernelevo's charge_writeback)."""

    def bench(fn):
        fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(5):
            before()
            fn()
        torch.cuda.synchronize()
        estimate = max((time.perf_counter() - t0) / 5, 1e-6)
        n = max(10, int(rep_ms * 1e-3 / estimate))
        ev = [[torch.cuda.Event(enable_timing=True) for _ in range(3)] for _ in range(n)]
        clean = [[torch.cuda.Event(enable_timing=True) for _ in range(2)] for _ in range(n if charge_after else 0)]
        for i, (s, e, d) in enumerate(ev):
            before()
            if charge_after:
                clean[i][0].record()
                before()
                clean[i][1].record()
            s.record()
            fn()
            e.record()
            if charge_after:
                before()
                d.record()
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e, _ in ev]
        if charge_after:
            flushes = sorted(c0.elapsed_time(c1) for c0, c1 in clean)
            clean_ms = flushes[len(flushes) // 2]
            times = [t + e.elapsed_time(d) - clean_ms for t, (_, e, d) in zip(times, ev)]
        times.sort()
        return times[len(times) // 2] * 1e3

    return bench


# Before each flush the timed buffers' L2 lines go back to the normal eviction priority, as
# kernelevo's flush does (tool/cuda/timer.cpp): a line a kernel marked evict_last outlives a
# flush of normal writes, and the next run would find it cached
# (bench/results/2026-12-07-evict-last-flush). install_l2_demotion() compiles the kernel (sm_80
# and later); set_timed_tensors() names the buffers; triton's do_bench has no such step.


def demote_source(root=ROOT):
    """kev_demote_l2 as kernelevo's runner compiles it: its text in tool/cuda/helper_kernels.cpp."""
    with open(os.path.join(root, "tool", "cuda", "helper_kernels.cpp")) as f:
        text = f.read()
    start = text.index('extern "C" __global__ void kev_demote_l2(')
    end = text.index("\n}\n", start) + 3
    return "typedef unsigned long long u64;\n" + text[start:end]


_DEMOTION = {"fn": None, "driver": None, "launches": []}


def install_l2_demotion(torch, driver, nvcc, work_dir):
    """Compiles kev_demote_l2 for this GPU (nothing before sm_80, which has no such priority)."""
    major, minor = torch.cuda.get_device_capability()
    if major < 8:
        return
    source = os.path.join(work_dir, "kev_demote_l2.cu")
    with open(source, "w") as f:
        f.write(demote_source())
    image = compile_cubin([nvcc, "-cubin", f"-arch=sm_{major}{minor}", source, "-o", source + ".cubin"])
    _DEMOTION.update(fn=driver.function(image, "kev_demote_l2"), driver=driver)


def set_timed_tensors(torch, tensors):
    """The buffers whose lines the flush demotes, until the next call."""
    import cuda_launch

    fn, driver = _DEMOTION["fn"], _DEMOTION["driver"]
    if fn is None:
        return
    stream = current_stream(torch)
    _DEMOTION["launches"] = [
        driver.launcher(fn, [SM_COUNT * 4 if SM_COUNT else 512], [256], 0, stream,
                        [cuda_launch.pointer_arg(t.data_ptr()), ctypes.c_uint64(t.numel() * t.element_size())])
        for t in tensors if t.numel() > 0]


def l2_flush(torch, clean=True):
    """before() for the events timers: the timed buffers' lines demoted (set_timed_tensors), a
    256 MiB buffer written, evicting everything, and with `clean` read back, so the dirty lines
    that write left are written back now rather than during the timed run; without it the run
    starts with the L2 full of dirty lines, as do_bench's clearing (a 256 MiB write) leaves it."""
    flush = torch.empty(64 * 1024 * 1024, dtype=torch.float32, device="cuda")
    sink = torch.empty(1, dtype=torch.float32, device="cuda")

    def before():
        for demote in _DEMOTION["launches"]:
            demote()
        flush.fill_(1.0)
        if clean:
            torch.sum(flush.view(1, -1), dim=1, out=sink)

    return before


def make_clean_timer(torch, rep_ms, charge_writeback=False):
    """(description, fn -> median microseconds): kernelevo's method. Before each run a 256 MiB
    buffer is written and read back, so every run starts from a cold L2 whose dirty lines were
    written back outside the timed region; the write-back of the lines the run itself leaves
    dirty is charged to it (the flush after it, beyond a clean flush) with `charge_writeback`
    (kernelevo's TimingOptions::charge_writeback, off by default like it)."""
    describe = (f"CUDA events around each run alone, median of ~{rep_ms} ms; before each run a 256 MiB buffer "
                "is written and read back (cold, clean L2, as kernelevo times), the timed buffers' lines returned to "
                "the normal eviction priority first")
    if charge_writeback:
        describe += "; the write-back the run leaves in the L2 charged (the flush after it, beyond a clean flush)"
    return describe, events_timer(torch, rep_ms, l2_flush(torch), charge_writeback)


def make_dirty_timer(torch, rep_ms):
    """(description, fn -> median microseconds): the clean timer's events, but the 256 MiB
    buffer is only written, not read back, so each run starts from a cold L2 full of dirty
    lines that it writes back as it evicts them: do_bench's starting state, by our timer."""
    describe = (f"CUDA events around each run alone, median of ~{rep_ms} ms; before each run a 256 MiB buffer "
                "is written and not read back (cold L2 full of dirty lines, as do_bench leaves it)")
    return describe, events_timer(torch, rep_ms, l2_flush(torch, clean=False))


def make_timer(torch, warmup_ms, rep_ms):
    """(description, fn -> median microseconds): triton's do_bench, whose L2 clearing (a 256 MiB
    write) leaves dirty lines that the timed run then writes back."""
    try:
        import inspect

        import triton
        from triton.testing import do_bench

        describe = (f"triton {triton.__version__} testing.do_bench (median; L2 cleared by a 256 MiB write before "
                    f"each run; warmup {warmup_ms} ms, rep {rep_ms} ms)")
        if "return_mode" in inspect.signature(do_bench).parameters:
            return describe, lambda fn: do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median") * 1e3
        return describe, lambda fn: do_bench(fn, warmup=warmup_ms, rep=rep_ms, quantiles=[0.5])[0] * 1e3
    except Exception:  # no triton: the same method by hand
        flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
        return (f"CUDA events, median, 256 MiB L2 write before each run, ~{rep_ms} ms (triton not available)",
                events_timer(torch, rep_ms, flush.zero_))


def time_in_rounds(candidates, timers, rounds, first_round=0):
    """{name: {timer: [its median in each round]}} for `candidates` [(name, fn, pinned)] (pinned
    a context entered around its timing, or None): each round times every candidate by every
    timer, one after the other, so a GPU whose clock sags under a long run's load (power, heat)
    charges the sag to every side alike, not to whichever ran last; every second round (counted
    from `first_round`) runs them in the reverse order, so a steady drift within a round favours
    no side either. `timers` maps a timer's name to the timer; a candidate with a fourth element
    (a set of timer names) is timed by those only."""
    out = {c[0]: {t: [] for t in timers if len(c) < 4 or t in c[3]} for c in candidates}
    for r in range(first_round, first_round + rounds):
        for name, fn, pinned, *only in (candidates if r % 2 == 0 else reversed(candidates)):
            with (pinned() if pinned else contextlib.nullcontext()):
                for t, timer in timers.items():
                    if not only or t in only[0]:
                        out[name][t].append(timer(fn))
    return out


def host_issue_us(torch, fn, calls=20):
    """Median microseconds the host takes to issue `fn` (its Python path and launches), the GPU
    left to run behind it."""
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    times.sort()
    return times[len(times) // 2] * 1e6


def clearing_gpu_us(torch, reps=10):
    """Median microseconds do_bench's L2 clearing (a 256 MiB write) keeps the GPU busy: the host
    time a timed call can take before do_bench's interval charges the GPU's wait for it."""
    cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        cache.zero_()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    times.sort()
    return times[len(times) // 2]


# Whether do_bench's figure for a call may hold host time: issuing it takes the host longer than
# the clearing before it keeps the GPU busy, so the GPU waits for the call after do_bench's
# start event.
host_bound = results_table.host_bound


COMPILE_WARMUP_CALLS = 3  # after the call that compiles, before timing


def compile_torch_fn(torch, fn):
    """torch.compile of `fn` for one shape: dynamo's caches reset (nothing compiled for an
    earlier shape or template is reused), static shapes, the default mode (inductor, no CUDA
    graphs)."""
    torch._dynamo.reset()
    return torch.compile(fn, dynamic=False)


def error_text(e, limit=2000):
    return f"{type(e).__name__}: {str(e).strip()}"[:limit]


def prepare_compiled(ctx, row, entry, values, dims, inouts, expected, rtol, atol):
    """Compiles entry.torch_fn with ctx["compile"], checks its output against the eager one
    (the inout buffers restored first, so it sees the reference's inputs) and warms it: the
    call to time (a GuardedCall), or None. A failure anywhere goes into row["compile_error"]; a
    CUDA error that outlives it (a lost context) is raised."""
    torch = ctx["torch"]
    try:
        start = time.perf_counter()
        compiled = ctx["compile"](entry.torch_fn)
        for t, initial in inouts:
            t.copy_(initial)
        got = compiled(values, dims)  # the first call compiles
        sync(torch)
        row["compile_s"] = time.perf_counter() - start
        if len(got) != len(expected):
            raise Skip(f"the compiled code gives {len(got)} outputs, eager {len(expected)}")
        row["compile_max_error"], row["compile_agree"] = compare(
            torch, [(f"#{i}", g, w) for i, (g, w) in enumerate(zip(got, expected))], rtol, atol)
        del got
        for _ in range(COMPILE_WARMUP_CALLS):
            compiled(values, dims)
        sync(torch)
        run = GuardedCall(lambda: compiled(values, dims))
    except Exception as e:  # the cell says so; the shape's other numbers stand
        compile_failed(row, entry, dims, e)
        run = None
    sync(torch)  # raises when the failure left the CUDA context unusable
    return run


def compile_failed(row, entry, dims, e):
    row["compile_error"] = error_text(e)
    print(f"compare_torch: torch.compile failed for {entry.template} {dims}: {error_text(e, 300)}",
          file=sys.stderr)


class GuardedCall:
    """torch.compile's code as a timed call: an exception it raises is kept in `failure` (the
    first one) rather than raised, and it runs nothing after, so its timing fails alone."""

    def __init__(self, fn):
        self.fn, self.failure = fn, []

    def __call__(self):
        if self.failure:
            return
        try:
            self.fn()
        except Exception as e:  # noqa: BLE001 - reported in the row by measure_shape_timed
            self.failure.append(e)


def timed_candidates(launches, entry, values, dims, compiled):
    """[(name, fn, None, timers)] in the order a round times them: ours, the defaults, eager
    PyTorch, the entry's other PyTorch forms, torch.compile's code. ours, eager and compiled
    are timed by both timers, the rest by the events timer only."""
    both, events = {"us", "dobench"}, {"us"}
    out = [("ours", launches["ours"], None, both), ("defaults", launches["defaults"], None, events),
           ("torch", lambda: entry.torch_fn(values, dims), None, both)]
    out += [(label, lambda fn=fn: fn(values, dims), None, events) for label, fn in entry.also_timed.items()]
    if compiled:
        out.append(("compile", compiled, None, both))
    return out


RIVALS = ("ours", "torch", "compile")  # what the rounds after the first time again


def time_shape(ctx, row, candidates):
    """Times `candidates` (timed_candidates) in ctx["rounds"] rounds (default 1): the first
    times every candidate, the later ones ours, eager and compiled again (time_in_rounds); each
    figure is the median of its rounds, each round's figure kept in row["rounds_us"] and
    row["rounds_us_dobench"]. A compiled call that fails while timed loses its cells, not the row."""
    timers = {"us": ctx["bench"]}
    if ctx.get("bench_dobench"):
        timers["dobench"] = ctx["bench_dobench"]
    rounds = ctx.get("rounds", 1)
    times = time_in_rounds(candidates, timers, 1)
    rivals = [c for c in candidates if c[0] in RIVALS]
    later = time_in_rounds(rivals, timers, rounds - 1, first_round=1)
    for name, per_timer in later.items():
        for t, values in per_timer.items():
            times[name][t] += values
    suffix = {"us": "_us", "dobench": "_us_dobench"}
    for name, per_timer in times.items():
        for t, values in per_timer.items():
            row[name + suffix[t]] = statistics.median(values)
            row.setdefault("rounds" + suffix[t], {})[name] = values
    row["rounds"] = rounds


def worse_error(a, b):
    """The larger error, NaN (outputs where PyTorch has none) winning."""
    return a if a != a or (b == b and a >= b) else b


def tolerance(entry, spec):
    out_type = next((a["type"] for a in spec["args"] if a.get("output") or a.get("inout")), "float")
    rtol, atol = entries_mod.TOLERANCES.get(out_type, (1e-4, 1e-5))
    return (entry.rtol if entry.rtol is not None else rtol, entry.atol if entry.atol is not None else atol)


def ours_key(plan, serving):
    """The compiled winner (plan["functions"]'s key) of a shape served as `serving` (served_by's
    answer): its params with its size define."""
    if serving["params"] is None:
        return "ours0"
    return f"ours{plan['winners'].index((serving['params'], serving['size_define']))}"


def measure_shape(ctx, plan, dims):
    try:
        return measure_shape_timed(ctx, plan, dims)
    finally:  # no flush may demote lines of buffers freed since
        set_timed_tensors(ctx["torch"], [])


def measure_shape_timed(ctx, plan, dims):
    torch, driver = ctx["torch"], ctx["driver"]
    spec, entry = plan["spec"], plan["entry"]
    serving = served_by(plan["lock_entry"], dims)
    winner, defaults = serving["params"], plan["defaults"]
    ours = {**defaults, **(winner or {})}  # a parameter the entry lacks keeps the source's default
    row = {"template": entry.template, "kernel": spec["id"], "shape": dims,
           "tuned_shape": dims in spec.get("problems", []),
           "winner_params": winner, "served_by": serving["label"], "size_define": serving["size_define"],
           "bucket": serving["bucket"], "bucket_inside": serving["inside"], "status": "ok"}
    torch.manual_seed(1234)
    values, outputs, inouts = make_args(torch, spec, dims, [ours, defaults])
    expected = entry.torch_fn(values, dims)
    sync(torch)
    stream = current_stream(torch)
    launches, args = {}, {}
    for which, params in (("ours", ours), ("defaults", defaults)):
        names = names_for(dims, params)
        fn = plan["functions"][ours_key(plan, serving) if which == "ours" else which]
        args[which] = kernel_args(spec, values, driver, names)
        launches[which], row[f"{which}_geometry"] = spec_launcher(driver, fn, spec, names, stream,
                                                                  args[which])
    set_timed_tensors(torch, [v for v in values.values() if torch.is_tensor(v)])
    rtol, atol = tolerance(entry, spec)
    row["rtol"], row["atol"] = rtol, atol
    row["max_error"], row["agree"] = check(torch, launches["ours"], outputs, inouts, expected, rtol, atol)
    _, defaults_agree = check(torch, launches["defaults"], outputs, inouts, expected, rtol, atol)
    row["defaults_agree"] = defaults_agree
    compiled = None
    if entry.memory_bound and ctx.get("compile"):  # the same PyTorch code under torch.compile
        compiled = prepare_compiled(ctx, row, entry, values, dims, inouts, expected, rtol, atol)
    candidates = timed_candidates(launches, entry, values, dims, compiled)
    time_shape(ctx, row, candidates)
    if compiled and compiled.failure:  # it failed while timed: its cells go, the row stays
        for key in ("compile_us", "compile_us_dobench"):
            row.pop(key, None)
        for rounds in (row.get("rounds_us", {}), row.get("rounds_us_dobench", {})):
            rounds.pop("compile", None)
        compile_failed(row, entry, dims, compiled.failure[0])
        sync(torch)
    if ctx.get("bench_dobench") and ctx.get("host_us"):  # whether do_bench may have charged the host's issue time
        for name, fn, *_ in candidates:
            if name in ("ours", "torch", "compile") and f"{name}_us_dobench" in row:
                row[f"{name}_host_us"] = ctx["host_us"](fn)
    if row.get("ours_us_dobench"):
        row["ratio_dobench"] = row["torch_us_dobench"] / row["ours_us_dobench"]
    if row.get("compile_us"):
        row["ratio_compile"] = row["compile_us"] / row["ours_us"]
    if row.get("compile_us_dobench") and row.get("ours_us_dobench"):
        row["ratio_compile_dobench"] = row["compile_us_dobench"] / row["ours_us_dobench"]
    # Verified again after timing: a kernel must not depend on state left by an earlier run.
    err_after, agree_after = check(torch, launches["ours"], outputs, inouts, expected, rtol, atol)
    row["max_error"] = worse_error(row["max_error"], err_after)
    row["agree"] = row["agree"] and agree_after
    row["ratio"] = row["torch_us"] / row["ours_us"]
    row["speedup_vs_defaults"] = row["defaults_us"] / row["ours_us"] if winner is not None else None
    nbytes = metric_bytes(spec, names_for(dims, ours))
    if nbytes:
        row["bytes"] = nbytes
        row["gbps"] = nbytes / (row["ours_us"] * 1e-6) / 1e9
        row["torch_gbps"] = nbytes / (row["torch_us"] * 1e-6) / 1e9
        if row.get("compile_us"):
            row["compile_gbps"] = nbytes / (row["compile_us"] * 1e-6) / 1e9
        if ctx.get("copy_gbps"):
            row["copy_fraction"] = row["gbps"] / ctx["copy_gbps"]
    del values, outputs, inouts, expected, launches, args
    if DEVICE == "cuda":
        torch.cuda.empty_cache()
    return row


# ---------------------------------------------------------------- per template


def prepare(ctx, entry):
    """Spec, winner and compile jobs of one template; raises Skip when it cannot run."""
    source = os.path.join("templates", entry.template + ".cu")
    root = ctx.get("source_root", ROOT)
    if not os.path.exists(os.path.join(root, source)):
        raise Skip(f"{source} does not exist")
    spec = load_spec(ctx["kernelevo"], source, entry.kernel, root)
    if "<" in spec["kernel"]:
        raise Skip(f"entry point {spec['kernel']} is a template instance; this script launches extern \"C\" kernels")
    defaults = spec.get("defaults")
    if defaults is None:
        raise Skip("scan gave no source defaults")
    arch = kernel_arch(spec, ctx["arch"])
    lock, device_key = lock_entry(ctx["lock"], spec["id"], arch, ctx["device"])
    # One compile per distinct winner (per bucket for an entry with buckets, a one-size bucket's
    # with its size define), as a build does; the defaults compile has no size define.
    plan = {"entry": entry, "spec": spec, "source": source, "arch": arch, "lock_entry": lock,
            "winners": winner_sets(lock), "defaults": defaults, "lock_device": device_key}
    cubins = os.path.join(ctx["out"], "cubins")
    os.makedirs(cubins, exist_ok=True)
    compiles = [(f"ours{i}", p, d) for i, (p, d) in enumerate(plan["winners"] or [({}, None)])]
    plan["commands"] = {
        which: nvcc_command(ctx["nvcc"], os.path.join(root, source), arch, params, spec,
                            os.path.join(cubins, f"{entry.template}.{spec['id']}.{which}.cubin"),
                            [define] if define else [])
        for which, params, define in compiles + [("defaults", {}, None)]
    }
    return plan


def attach_functions(ctx, plan, images):
    driver, name = ctx["driver"], plan["spec"]["kernel"]
    plan["functions"] = {which: driver.function(image, name) for which, image in images.items()}


def failed_row(entry_name, status, error, dims=None):
    return {"template": entry_name, "shape": dims or {}, "status": status, "error": str(error)}


def params_text(params):
    return " ".join(f"{k}={v}" for k, v in sorted(params.items())) or "(source defaults)"


def tune_note(out, entry, plan):
    """The table's note on a template: its tune's evaluations (summed over the buckets) and
    its winner, or each bucket's."""
    kernel_id = plan["spec"]["id"]
    counts = []
    # run.sh tunes a whole template (tune_T.json); a tune of one kernel writes tune_ID.json.
    for name in (entry.template, kernel_id):
        try:
            with open(os.path.join(out, f"tune_{name}.json")) as f:
                tune = json.load(f)
            counts = [k["evaluations"] for k in tune["kernels"] if k["id"] == kernel_id]
        except Exception:
            continue
        if counts:
            break
    if counts:
        evals = f"{sum(counts)} evaluations" + (f" ({len(counts)} searches)" if len(counts) > 1 else "")
    else:
        evals = f"no tune result (see tune_{entry.template}.log)"
    lock, where = plan["lock_entry"], f"({plan['arch']}, {plan['lock_device']})"
    if lock is None:
        return f"{entry.template}: {evals}; no lockfile entry for {plan['arch']}, so ours = the defaults"
    if "buckets" not in lock:
        return f"{entry.template}: {evals}; winner {params_text(lock.get('params', {}))} {where}"
    buckets = "; ".join(f"{lock['by']} {range_text(b['range'])}: {params_text(b.get('params', {}))}"
                        for b in lock["buckets"])
    return f"{entry.template}: {evals}; {len(lock['buckets'])} buckets of {lock['by']} {where}: {buckets}"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--kernelevo", required=True)
    p.add_argument("--lockfile")
    p.add_argument("--devices", help="kernelevo devices --format json output (default OUT/devices.json)")
    p.add_argument("--warmup-ms", type=int, default=25)
    p.add_argument("--rep-ms", type=int, default=200)
    p.add_argument("--command", help="the command line to record (default: this one)")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds of timing: the first times every candidate, the later ones ours, eager PyTorch and "
                        "torch.compile's code again, every second round in reverse order; each figure the median of "
                        "its rounds (default 3)")
    p.add_argument("--no-compile", action="store_true", help="no torch.compile column")
    p.add_argument("--source-root", help="the directory holding templates/T.cu, the sources the lockfile's "
                   "entries were tuned on (default: the repository; run.sh's PER_SHAPE=1: OUT)")
    p.add_argument("templates", nargs="*")
    a = p.parse_args(argv)
    if a.rounds < 1:
        p.error("--rounds: at least 1")
    return a


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv):
    a = parse_args(argv)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    selected = ([e for t in a.templates for e in (entries_mod.of_template(t) or [t])] if a.templates
                else entries_mod.ENTRIES)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": a.command or " ".join(shlex.quote(x) for x in sys.argv),
            "budget": os.environ.get("BUDGET_NOTE", ""), "notes": []}
    if not meta["budget"]:
        del meta["budget"]
    rows = []
    devices = load_json(a.devices or os.path.join(out, "devices.json"))
    gpu = devices[0] if devices else {}
    ctx = {"out": out, "kernelevo": os.path.abspath(a.kernelevo), "nvcc": find_nvcc(), "lock": load_json(a.lockfile or os.path.join(out, "kernelevo.lock.json")),
           "device": gpu.get("name"), "arch": gpu.get("arch"), "copy_gbps": gpu.get("copy_gbps"),
           "source_root": os.path.abspath(a.source_root) if a.source_root else ROOT, "rounds": a.rounds}
    meta["copy_gbps"] = ctx["copy_gbps"]
    meta["rounds"] = (f"{a.rounds}: every candidate timed by each timer one after the other, then ours, eager "
                      f"PyTorch and torch.compile's code {a.rounds - 1} more times alike, every second round in "
                      "reverse order; each figure the median of its rounds")
    try:
        import torch

        torch.zeros(1, device="cuda")  # creates torch's context before the driver API uses it
        use_device_sm_count(torch)
        import cuda_launch

        ctx["torch"], ctx["driver"] = torch, cuda_launch.Driver(torch.cuda.current_device())
        meta["device"] = torch.cuda.get_device_name()
        meta["torch"] = torch.__version__
        install_l2_demotion(torch, ctx["driver"], ctx["nvcc"], out)
        meta["timer"], ctx["bench"] = make_clean_timer(torch, a.rep_ms)
        meta["second_timer"], ctx["bench_dobench"] = make_timer(torch, a.warmup_ms, a.rep_ms)
        meta["clearing_us"] = clearing_gpu_us(torch)
        ctx["host_us"] = lambda fn: host_issue_us(torch, fn)
        if not a.no_compile:
            ctx["compile"] = lambda fn: compile_torch_fn(torch, fn)
            meta["compile"] = (f"torch.compile(torch_fn, dynamic=False) of the same PyTorch code, default mode "
                               f"(inductor), torch._dynamo.reset() before each shape; compiled, checked against "
                               f"eager and warmed ({COMPILE_WARMUP_CALLS} calls) before timing, both timers, "
                               f"same inputs; memory-bound templates only")
        if not ctx["arch"]:
            major, minor = torch.cuda.get_device_capability()
            ctx["arch"] = f"sm_{major}{minor}"
    except Exception as e:  # nothing can be measured; say so in the table
        rows.append(failed_row("(all)", "no GPU or PyTorch", e))
        results_table.write(out, meta, rows)
        print(f"compare_torch: {e}", file=sys.stderr)
        return 1

    plans = []
    for entry in selected:
        if isinstance(entry, str):
            rows.append(failed_row(entry, "unknown", "not in bench/templates/entries.py"))
            continue
        try:
            plans.append(prepare(ctx, entry))
        except Skip as e:
            rows.append(failed_row(entry.template, "skipped", e))
        except Exception as e:
            rows.append(failed_row(entry.template, "failed", f"{type(e).__name__}: {e}"))
    # Every compile at once (CPU only), before the GPU work.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        jobs = {(id(p), w): pool.submit(compile_cubin, cmd) for p in plans for w, cmd in p["commands"].items()}
    for plan in plans:
        entry = plan["entry"]
        start = time.time()
        try:
            images = {w: jobs[(id(plan), w)].result() for w in plan["commands"]}
            attach_functions(ctx, plan, images)
        except Exception as e:
            rows.append(failed_row(entry.template, "compile failed", e))
            continue
        meta["notes"].append(tune_note(out, entry, plan))
        for dims in entry.shapes:
            try:
                rows.append(measure_shape(ctx, plan, dims))
            except Skip as e:
                rows.append(failed_row(entry.template, "skipped", e, dims))
            except Exception as e:
                traceback.print_exc()
                rows.append(failed_row(entry.template, "failed", f"{type(e).__name__}: {e}", dims))
                try:
                    ctx["torch"].cuda.synchronize()
                except Exception as sticky:  # a kernel fault leaves the context unusable
                    rows.append(failed_row("(all)", "stopped", f"CUDA context lost: {sticky}"))
                    results_table.write(out, meta, rows)
                    return 1
            results_table.write(out, meta, rows)  # a killed run keeps what it measured
        print(f"compare_torch: {entry.template} done in {time.time() - start:.1f} s", file=sys.stderr)
    results_table.write(out, meta, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
