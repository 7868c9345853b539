"""The package's benchmark (a kernelevo project file, copied into every exported package):
the operator beside its PyTorch equivalent, when the export was given one
(`--torch-equivalent FILE`), at the spec's tuned problems, in one process on the same inputs.

  python -m PACKAGE.bench [--device N] [--reps N] [--json FILE]

Each run is timed alone with CUDA events from a cold L2 (a 256 MiB buffer written and read
before it, as kernelevo times), the median of --reps runs after warm-up; the call's Python
overhead is part of the time, as it is part of any call from PyTorch.
"""

import argparse
import json
import statistics
import sys

from . import _runtime as runtime
from . import test as package_test


def timed(torch, fn, reps, flush):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        flush.fill_(1)
        flush.sum()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def equivalent(package):
    """The PyTorch equivalent the export carried (torch_equivalent(kernel_id, args, dims) in
    the package's _equivalent.py), or None."""
    name = package.kernel.meta.get("equivalent")
    if not name:
        return None
    from . import _equivalent

    fn = getattr(_equivalent, "torch_equivalent", None)
    return fn if callable(fn) else None


def flat_args(kernel, tensors, keywords, dims):
    """The equivalent's arguments: the kernel's arguments by name (tensors flat, scalars as
    numbers), as bench/templates/entries.py takes them."""
    a = {k: v.reshape(-1) for k, v in tensors.items()}
    for arg in kernel.args:
        if arg["role"] == "keyword":
            a[arg["name"]] = keywords.get(arg["name"], arg.get("float_default", arg.get("int_default")))
        elif arg["role"] == "dim":
            a[arg["name"]] = dims[arg["dim"]]
    return a


def bench(torch, package, device, reps):
    kernel = package.kernel
    eq = equivalent(package)
    flush = torch.empty(64 * 1024 * 1024, dtype=torch.float32, device=device)
    rows = []
    for dims in kernel.meta.get("problems") or []:
        gen = torch.Generator(device=device)
        gen.manual_seed(1)
        tensors, keywords = package_test.make_inputs(torch, kernel, dims, device, gen)
        args = [tensors[a["name"]] for a in kernel.inputs]
        row = {"kernel": kernel.id, "dims": dims,
               "op_us": timed(torch, lambda: package.call(*args, **keywords), reps, flush)}
        if eq is not None:
            fa = flat_args(kernel, tensors, keywords, dims)
            want = eq(kernel.id, fa, dims)
            if want is not None:
                got = package_test.as_list(package.call(*[t.clone() for t in args], **keywords))
                errs = [float((g.double().reshape(-1) - w.double().reshape(-1)).abs().max()) if g.numel() else 0.0
                        for g, w in zip(got, want)]
                row["torch_us"] = timed(torch, lambda: eq(kernel.id, fa, dims), reps, flush)
                row["speedup"] = row["torch_us"] / row["op_us"]
                row["max_abs_diff_vs_torch"] = max(errs) if errs else 0.0
        rows.append(row)
    return rows


def markdown(rows):
    lines = ["| kernel | shape | op us | torch us | torch / op | max abs diff |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        shape = ", ".join(f"{k}={v}" for k, v in r["dims"].items())
        t = r.get("torch_us")
        lines.append(f"| {r['kernel']} | {shape} | {r['op_us']:.1f} | {'-' if t is None else f'{t:.1f}'} | "
                     f"{'-' if t is None else '%.2fx' % r['speedup']} | "
                     f"{'-' if t is None else '%.3g' % r['max_abs_diff_vs_torch']} |")
    return "\n".join(lines)


def main(argv=None, package=None):
    parser = argparse.ArgumentParser(prog="python -m PACKAGE.bench")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--json", help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    if package is None:
        from . import _package as package
    import torch

    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    rows = bench(torch, package, device, args.reps)
    print(markdown(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
