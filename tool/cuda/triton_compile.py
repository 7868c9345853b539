"""Compiles one configuration of one @triton.jit function to a CUBIN, for kernelevo.

Run by kernelevo's Triton compiler (tool/cuda/triton_compiler.cpp) in a child process with a
time limit, an explicit minimal environment and bounded output; never imported by kernelevo.

    python -I -B triton_compile.py REQUEST.json     compile; one JSON object on stdout
    python -I -B triton_compile.py --version        {"triton_version": ..., "python": ...}

The request: {"source": path of the .py file to load, "search_dir": the directory its own
imports resolve from, "kernel": function name, "signature": [[name, type], ...] for the
parameters that are not constexpr, in order ("*fp32", "i32", "fp32"...), "constexprs":
{name: value}, "options": {"num_warps": 4, "num_stages": 3, "num_ctas": 1}, "arch": 90,
"pointer_divisibility": 16}.

The answer: {"ok": true, "name": the CUBIN's entry symbol, "cubin": base64, "shared": dynamic
shared memory in bytes, "num_warps", "num_ctas", "global_scratch_size",
"profile_scratch_size", "launch_cooperative_grid", "launch_pdl", "triton_version"} or
{"ok": false, "error": text}. Everything else (Triton's own messages, the module's prints)
goes to stderr.

Loading the module runs its top-level code: that is the one thing Triton's compile needs
(ASTSource takes the function object, and its globals resolve through the module). The
trust boundary this crosses is described in docs/triton.md.
"""

import base64
import importlib.util
import io
import json
import os
import re
import sys
import traceback

MAX_ERROR = 8000


def answer(fd, obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


def fail(fd, message):
    if len(message) > MAX_ERROR:
        message = "..." + message[-MAX_ERROR:]
    answer(fd, {"ok": False, "error": message})
    return 1


def load_function(source, search_dir, kernel):
    if search_dir:
        sys.path.insert(0, search_dir)
    spec = importlib.util.spec_from_file_location("kernelevo_triton_source", source)
    if spec is None or spec.loader is None:
        raise RuntimeError("cannot load " + source + " as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, kernel, None)
    if fn is None:
        raise RuntimeError("the module defines no `" + kernel + "`")
    return fn


def compile_request(req):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    fn = load_function(req["source"], req.get("search_dir", ""), req["kernel"])
    if not isinstance(fn, JITFunction):
        raise RuntimeError("`" + req["kernel"] + "` is not a @triton.jit function (it is a " +
                           type(fn).__name__ + "; an @triton.autotune or @triton.heuristics "
                           "wrapper is not supported: kernelevo tunes the function itself)")
    names = fn.arg_names
    constexpr = [p.is_constexpr for p in fn.params]
    runtime = [n for n, c in zip(names, constexpr) if not c]
    wanted = [n for n, _ in req["signature"]]
    if runtime != wanted:
        raise RuntimeError("the function's parameters that are not constexpr are (" +
                           ", ".join(runtime) + ") but the spec's args are (" +
                           ", ".join(wanted) + ")")
    constexprs = dict(req.get("constexprs", {}))
    for name in constexprs:
        if name not in names or not constexpr[names.index(name)]:
            raise RuntimeError("`" + name + "` is not a constexpr parameter of `" +
                               req["kernel"] + "`")
    for p in fn.params:
        if p.is_constexpr and p.name not in constexprs:
            if not p.has_default:
                raise RuntimeError("constexpr `" + p.name + "` has no value: tune it or give "
                                   "it a default")
            constexprs[p.name] = p.default
    types = dict(req["signature"])
    signature = {}
    for n, c in zip(names, constexpr):
        signature[n] = "constexpr" if c else types[n]
    divisibility = int(req.get("pointer_divisibility", 0))
    attrs = {}
    if divisibility > 1:
        for i, n in enumerate(names):
            if not constexpr[i] and signature[n].startswith("*"):
                attrs[(i,)] = [["tt.divisibility", divisibility]]
    src = ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
    target = GPUTarget("cuda", int(req["arch"]), 32)
    options = {k: int(v) for k, v in req.get("options", {}).items()}
    kernel = triton.compile(src, target=target, options=options)
    md = kernel.metadata
    cubin = kernel.asm["cubin"]
    # The parameters the entry takes after the kernel's own (Triton 3.6: global and profile
    # scratch pointers), counted in its PTX.
    ptx = kernel.asm.get("ptx", "")
    entry = re.search(r"\.entry\s+[\w$]+\s*\(([^)]*)\)", ptx, re.S)
    if entry is None:
        raise RuntimeError("cannot find the kernel's entry in Triton's PTX")
    params = len(re.findall(r"\.param\b", entry.group(1)))
    trailing = params - len(runtime)
    search_dir = os.path.realpath(req.get("search_dir", "") or os.path.dirname(req["source"]))
    deps = []
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if f and os.path.realpath(f).startswith(search_dir + os.sep):
            deps.append(os.path.realpath(f))
    return {
        "ok": True,
        "name": kernel.name if hasattr(kernel, "name") else md.name,
        "cubin": base64.b64encode(cubin).decode(),
        "shared": int(md.shared),
        "num_warps": int(md.num_warps),
        "num_ctas": int(getattr(md, "num_ctas", 1)),
        "global_scratch_size": int(getattr(md, "global_scratch_size", 0)),
        "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0)),
        "launch_cooperative_grid": bool(getattr(md, "launch_cooperative_grid", False)),
        "launch_pdl": bool(getattr(md, "launch_pdl", False)),
        "trailing_pointers": trailing,
        "dependencies": sorted(set(deps)),
        "triton_version": triton.__version__,
    }


def main(argv):
    # The answer goes to the stdout kernelevo reads; everything printed while the module
    # loads and Triton compiles goes to stderr.
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if len(argv) == 2 and argv[1] == "--version":
        try:
            import triton
        except Exception as e:  # noqa: BLE001 - reported, whatever it is
            return fail(out, "cannot import triton: " + repr(e))
        answer(out, {"ok": True, "triton_version": triton.__version__,
                     "python": sys.version.split()[0]})
        return 0
    if len(argv) != 2:
        return fail(out, "usage: triton_compile.py REQUEST.json | --version")
    try:
        with io.open(argv[1], "r", encoding="utf-8") as f:
            req = json.load(f)
    except Exception as e:  # noqa: BLE001
        return fail(out, "cannot read the request: " + repr(e))
    try:
        answer(out, compile_request(req))
        return 0
    except Exception:  # noqa: BLE001 - Triton's errors are of many types
        text = traceback.format_exc()
        return fail(out, text)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
