"""The package's own test (a kernelevo project file, copied into every exported package):
the operator against the spec's reference kernel on random inputs, at the spec's `validate`
and `problems` shapes, with the spec's tolerance; then the operator under torch.compile.

  python -m PACKAGE.test [--device N] [--no-compile] [--quick]

Needs a CUDA GPU of an architecture the package holds. Exit 0 when every check passed.
"""

import argparse
import sys

from . import _runtime as runtime


def make_inputs(torch, kernel, dims, device, generator):
    """The operator's arguments at `dims`: each tensor shaped by its axis groups, filled as
    the spec's `init` says; keyword dimensions as keywords."""
    tensors, keywords = {}, {}
    names = dict(dims)
    defaults = kernel.meta.get("defaults") or {}
    for k, v in defaults.items():
        if isinstance(v, int) and not isinstance(v, bool):
            names[k] = v
    for arg in kernel.inputs:
        count = runtime.spec_expr.evaluate(arg["count"], names)
        groups = arg["groups"]
        shape = [f * dims[g] if g else f for g, f in groups] if groups else [count]
        if runtime._prod(shape) != count:
            shape = [count]
        dtype = getattr(torch, runtime.DTYPES[arg["type"]][0])
        init = arg.get("init", "normal")
        lo, hi = arg.get("init_range") or [0, 0]
        opts = dict(device=device, generator=generator)
        if init == "zeros":
            t = torch.zeros(shape, dtype=dtype, device=device)
        elif init == "constant":
            t = torch.full(shape, arg.get("init_value", 0.0), device=device).to(dtype)
        elif init == "iota":
            t = torch.arange(count, device=device).reshape(shape).to(dtype)
        elif init == "randint":
            t = torch.randint(int(lo), int(hi), shape, **opts).to(dtype)
        elif init == "uniform":
            t = (torch.rand(shape, **opts) * (hi - lo) + lo).to(dtype)
        elif dtype.is_floating_point:
            t = torch.randn(shape, **opts).to(dtype)
        else:
            t = torch.round(torch.randn(shape, **opts) * 16).to(dtype)
        tensors[arg["name"]] = t
    for d in kernel.keyword_dims:
        keywords[d] = dims[d]
    return tensors, keywords


def as_list(out):
    if out is None:
        return []
    return list(out) if isinstance(out, tuple) else [out]


def run_both(torch, package, tensors, keywords):
    """(operator's outputs and inouts, reference's), each on its own copy of the inputs."""
    kernel = package.kernel
    results = []
    for fn in (package.call, package.reference):
        copies = {k: v.clone() for k, v in tensors.items()}
        outs = as_list(fn(*[copies[a["name"]] for a in kernel.inputs], **keywords))
        outs += [copies[a["name"]] for a in kernel.inouts]
        results.append(outs)
    torch.cuda.synchronize()
    return results


def check_shape(torch, package, dims, device, seed):
    kernel = package.kernel
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    tensors, keywords = make_inputs(torch, kernel, dims, device, gen)
    got, want = run_both(torch, package, tensors, keywords)
    named = kernel.outputs + kernel.inouts
    failures = []
    for arg, g, w in zip(named, got, want):
        tol = arg["tolerance"]
        ok, max_err, bad = runtime.allclose_report(g, w, tol["rtol"], tol["atol"])
        if not ok:
            failures.append(f"{arg['name']}: {bad} element(s) out of rtol {tol['rtol']}, atol {tol['atol']} "
                            f"(max abs error {max_err:.3g})")
    return failures


def shapes(kernel, quick):
    out = list(kernel.meta.get("validate") or [])
    problems = sorted(kernel.meta.get("problems") or [], key=lambda d: runtime._prod(d.values()))
    out += problems[:1] if quick else problems
    return out


def check_compile(torch, package, dims, device):
    """torch.compile(fullgraph=True) of a function calling the operator gives the eager
    operator's result."""
    kernel = package.kernel
    gen = torch.Generator(device=device)
    gen.manual_seed(7)
    tensors, keywords = make_inputs(torch, kernel, dims, device, gen)
    op = package.op

    def fn(*ts):
        return op(*ts, **keywords)

    compiled = torch.compile(fn, fullgraph=True)
    args = [tensors[a["name"]] for a in kernel.inputs]
    eager = as_list(fn(*[t.clone() for t in args]))
    traced = as_list(compiled(*[t.clone() for t in args]))
    torch.cuda.synchronize()
    return all(torch.equal(a, b) for a, b in zip(eager, traced))


def main(argv=None, package=None):
    parser = argparse.ArgumentParser(prog="python -m PACKAGE.test")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--no-compile", action="store_true", help="skip the torch.compile check")
    parser.add_argument("--quick", action="store_true", help="the validate shapes and the smallest problem")
    args = parser.parse_args(argv)
    if package is None:
        from . import _package as package
    import torch

    device = torch.device("cuda", args.device)
    torch.cuda.set_device(device)
    kernel = package.kernel
    passed = failed = 0
    for i, dims in enumerate(shapes(kernel, args.quick)):
        label = ", ".join(f"{k}={v}" for k, v in dims.items())
        failures = check_shape(torch, package, dims, device, seed=1000 + i)
        if failures:
            failed += 1
            print(f"FAIL {kernel.id} [{label}]: " + "; ".join(failures))
        else:
            passed += 1
            print(f"ok   {kernel.id} [{label}]")
    if not args.no_compile:
        dims = (kernel.meta.get("validate") or kernel.meta["problems"])[0]
        try:
            same = check_compile(torch, package, dims, device)
        except Exception as e:  # noqa: BLE001 - reported as the check's failure
            same = False
            print(f"FAIL {kernel.id} torch.compile: {type(e).__name__}: {e}")
        else:
            print(("ok   " if same else "FAIL ") + f"{kernel.id} torch.compile(fullgraph=True) "
                  + ("matches eager" if same else "differs from eager"))
        passed, failed = (passed + 1, failed) if same else (passed, failed + 1)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
