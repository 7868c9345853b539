#!/usr/bin/env python3
"""Imports packages written by `kernelevo export --torch` and checks them on the GPU, in one
process: each package's own test (the operator against the spec's reference kernel at the
validate shapes and the smallest problem, then torch.compile(fullgraph=True) of a function
calling it, against eager), then each operator timed beside its PyTorch equivalent at the
spec's problems (the package's bench: CUDA events from a cold L2, median of --reps), and a
function calling the operator compiled by torch.compile (inductor) timed at the first
problem. Writes OUT/export-torch.md and OUT/export-torch.json; a package that fails is
reported as such and the run goes on. scripts/export-torch-check runs it.

  check.py --out OUT [--reps N] PACKAGE_DIR...
"""

import argparse
import datetime
import importlib
import io
import json
import os
import sys
import time
import traceback
from contextlib import redirect_stdout


class OpCall:
    """The operator's inputs at `dims` (seeded) and a function calling it, eager and compiled
    (torch.compile, inductor, fullgraph, static shapes)."""

    def __init__(self, torch, pkg, device, dims, seed):
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
        self.dims = dims
        self.tensors, self.keywords = pkg.test.make_inputs(torch, pkg.kernel, dims, device, gen)
        self.args = [self.tensors[a["name"]] for a in pkg.kernel.inputs]
        op, keywords = pkg.op, self.keywords

        def fn(*ts):
            return op(*ts, **keywords)

        self.eager = fn
        self.compiled = torch.compile(fn, fullgraph=True, dynamic=False)


def compiled_time(torch, pkg, device, reps):
    """torch.compile of `lambda *ts: op(*ts)` at the first problem: its time, and whether it
    gives the eager operator's result."""
    c = OpCall(torch, pkg, device, pkg.kernel.meta["problems"][0], seed=3)
    same = all(torch.equal(a, b) for a, b in zip(pkg.test.as_list(c.compiled(*[t.clone() for t in c.args])),
                                                 pkg.test.as_list(c.eager(*[t.clone() for t in c.args]))))
    flush = torch.empty(64 * 1024 * 1024, dtype=torch.float32, device=device)
    return pkg.bench.timed(torch, lambda: c.compiled(*c.args), reps, flush), same, c.dims


def host_us(torch, fn, calls=300):
    """Microseconds a call costs the host: `calls` calls back to back on a problem so small
    that the GPU keeps up, the wall time over the count."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def host_overheads(torch, pkg, device):
    """Host cost per call at the spec's first validation shape: the package's direct call,
    the operator through torch.ops (torch.library's dispatch), torch.compile of a function
    calling it, and the PyTorch equivalent when the export carried one."""
    kernel = pkg.kernel
    c = OpCall(torch, pkg, device, (kernel.meta.get("validate") or kernel.meta["problems"])[0], seed=4)
    out = {"dims": c.dims,
           "call_us": host_us(torch, lambda: pkg._package.call(*c.args, **c.keywords)),
           "op_us": host_us(torch, lambda: c.eager(*c.args)),
           "compiled_us": host_us(torch, lambda: c.compiled(*c.args))}
    eq = pkg.bench.equivalent(pkg._package)
    if eq is not None:
        fa = pkg.bench.flat_args(kernel, c.tensors, c.keywords, c.dims)
        if eq(kernel.id, fa, c.dims) is not None:
            out["torch_us"] = host_us(torch, lambda: eq(kernel.id, fa, c.dims))
    return out


def check_package(torch, path, device, reps):
    parent, name = os.path.split(os.path.abspath(path))
    sys.path.insert(0, parent)
    row = {"package": name, "path": path}
    try:
        pkg = importlib.import_module(name)
        importlib.import_module(name + ".test")
        importlib.import_module(name + ".bench")
        row["kernel"] = pkg.kernel.id
        row["archs"] = {a: pkg.kernel.meta["archs"][a]["choice"] for a in pkg.kernel.archs()}
        arch = pkg._runtime.get_backend().arch(torch, device)
        row["gpu_arch"] = arch
        row["params"] = [v["params"] for v in pkg.kernel.arch_entry(arch)["variants"]]
        out = io.StringIO()
        t0 = time.time()
        with redirect_stdout(out):
            rc = pkg.test.main(["--device", str(device.index), "--quick"], package=pkg._package)
        row["test_seconds"] = round(time.time() - t0, 1)
        row["test_output"] = out.getvalue().splitlines()
        row["test_passed"] = rc == 0
        row["bench"] = pkg.bench.bench(torch, pkg._package, device, reps)
        us, same, dims = compiled_time(torch, pkg, device, reps)
        row["compiled"] = {"dims": dims, "us": us, "matches_eager": same}
        try:
            row["host"] = host_overheads(torch, pkg, device)
        except Exception as e:  # noqa: BLE001 - the host figures are extra; the row stands
            row["host_error"] = f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - reported in the table, the run goes on
        row["error"] = f"{type(e).__name__}: {e}"
        row["traceback"] = traceback.format_exc()
    finally:
        sys.path.remove(parent)
    return row


def markdown(meta, rows):
    lines = [f"# export --torch on {meta['device']}", "",
             f"{meta['date']}, torch {meta['torch']}, CUDA {meta['cuda']}; `{meta['command']}`", "",
             "| kernel | test | torch.compile | shape | op us | PyTorch us | PyTorch / op | op compiled us |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r.get('kernel', r['package'])} | ERROR: {r['error']} | | | | | | |")
            continue
        compile_ok = next((l for l in r["test_output"] if "torch.compile" in l), "")
        compile_cell = "ok" if compile_ok.startswith("ok") else "FAIL"
        for i, b in enumerate(r["bench"]):
            shape = ", ".join(f"{k}={v}" for k, v in b["dims"].items())
            t = b.get("torch_us")
            comp = r["compiled"]["us"] if i == 0 else None
            lines.append(
                f"| {r['kernel'] if i == 0 else ''} | {('PASS' if r['test_passed'] else 'FAIL') if i == 0 else ''} | "
                f"{compile_cell if i == 0 else ''} | {shape} | {b['op_us']:.1f} | {'-' if t is None else f'{t:.1f}'} | "
                f"{'-' if t is None else '%.2fx' % b['speedup']} | {'' if comp is None else f'{comp:.1f}'} |")
    lines += ["", "Host cost of a call (us; calls back to back at the first validation shape, where the GPU "
              "keeps up): the package's direct call, the operator through torch.ops, torch.compile of a "
              "function calling it, the PyTorch equivalent:", "",
              "| kernel | shape | call | torch.ops | compiled | PyTorch |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        h = r.get("host")
        if h:
            shape = ", ".join(f"{k}={v}" for k, v in h["dims"].items())
            t = h.get("torch_us")
            lines.append(f"| {r['kernel']} | {shape} | {h['call_us']:.1f} | {h['op_us']:.1f} | "
                         f"{h['compiled_us']:.1f} | {'-' if t is None else f'{t:.1f}'} |")
    lines += ["", "Each package's test output:", ""]
    for r in rows:
        lines.append(f"- {r.get('kernel', r['package'])}: "
                     + ("; ".join(r.get("test_output", [])) if "error" not in r else r["error"]))
    lines += ["", "Architectures and winners:", ""]
    for r in rows:
        if "error" not in r:
            lines.append(f"- {r['kernel']} on {r['gpu_arch']}: {json.dumps(r['params'])} "
                         f"({'; '.join(f'{a}: {c}' for a, c in r['archs'].items())})")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--command", default=" ".join(sys.argv))
    parser.add_argument("packages", nargs="+")
    args = parser.parse_args()
    import torch

    device = torch.device("cuda", torch.cuda.current_device())
    meta = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__,
            "cuda": torch.version.cuda, "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": args.command}
    rows = []
    for path in args.packages:
        print(f"== {path}", file=sys.stderr, flush=True)
        rows.append(check_package(torch, path, device, args.reps))
        if "error" in rows[-1]:
            print(rows[-1]["traceback"], file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "export-torch.json"), "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=2)
    text = markdown(meta, rows)
    with open(os.path.join(args.out, "export-torch.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    ok = all("error" not in r and r["test_passed"] and r["compiled"]["matches_eager"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
