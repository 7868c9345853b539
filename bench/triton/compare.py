#!/usr/bin/env python3
"""Times the tuned Triton templates beside their CUDA twins, torch.compile and eager PyTorch,
in one process on the same inputs (one GPU).

For softmax_triton.py / softmax.cu, rmsnorm_triton.py / rmsnorm.cu and bias_gelu_triton.py /
bias_gelu.cu, at each shape of the
specs' problems: the Triton winner of the lockfile is compiled to a CUBIN by kernelevo's own
helper (tool/cuda/triton_compile.py: the same signature, alignment hints and options as the
tuner, so the very image kernelevo timed) and the CUDA winner by `nvcc -cubin`; both are
launched through the driver API (bench/templates/cuda_launch.py) on torch tensors, checked
against PyTorch's result and timed with CUDA events from a cold, clean L2 (kernelevo's method,
bench/templates/compare_torch.py's timer), beside torch eager and torch.compile(dynamic=False).
Writes OUT/triton.md and OUT/triton.json; a failing column is reported as such and the run
goes on.

  compare.py --out OUT --kernelevo BIN --lockfile F [--rep-ms 200] [--no-compile]
"""

import argparse
import json
import os
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "templates"))
sys.path.insert(0, os.path.join(ROOT, "tool", "cuda"))

import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402
import spec_expr  # noqa: E402
import triton_compile  # noqa: E402

PAIRS = [
    # (name, triton source, triton id, cuda source, cuda id)
    ("softmax", "templates/softmax_triton.py", "softmax_rows_triton", "templates/softmax.cu", "softmax_rows"),
    ("rmsnorm", "templates/rmsnorm_triton.py", "rmsnorm_rows_triton", "templates/rmsnorm.cu", "rmsnorm_rows"),
    ("bias_gelu", "templates/bias_gelu_triton.py", "bias_gelu_triton", "templates/bias_gelu.cu", "bias_gelu"),
]
# The spec's types as `scan --format json` names them -> Triton's signature types (as
# tool/cuda/triton_compiler.cpp's triton_type maps them).
TRITON_TYPES = {"__half": "fp16", "__nv_bfloat16": "bf16", "float": "fp32", "double": "fp64",
                "int8_t": "i8", "int16_t": "i16", "int32_t": "i32", "int64_t": "i64",
                "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32", "uint64_t": "u64"}


def triton_type(arg):
    """A `scan --format json` argument as a Triton signature type ("*fp32", "i32")."""
    if arg["type"] not in TRITON_TYPES:
        raise ValueError(f"argument {arg['name']!r}: no Triton type for the spec's {arg['type']!r}")
    return ("*" if arg["pointer"] else "") + TRITON_TYPES[arg["type"]]


def triton_defaults(spec):
    defaults = dict(spec.get("defaults") or {})
    out = {}
    for name, values in spec["params"].items():
        if name in ("num_warps", "num_stages", "num_ctas"):
            out[name] = {"num_warps": 4, "num_stages": 3, "num_ctas": 1}[name]
        else:
            out[name] = defaults.get(name, values[0])
    return out


def compile_triton(spec, params, arch):
    """The CUBIN kernelevo's Triton compiler builds for `params` (dict), and its launch."""
    sig = [[a["name"], triton_type(a)] for a in spec["args"]]
    req = {
        "source": os.path.join(ROOT, spec["source"]),
        "search_dir": os.path.dirname(os.path.join(ROOT, spec["source"])),
        "kernel": spec["kernel"],
        "signature": sig,
        "constexprs": {k: v for k, v in params.items() if k not in ("num_warps", "num_stages", "num_ctas")},
        "options": {k: v for k, v in params.items() if k in ("num_warps", "num_stages", "num_ctas")},
        "arch": int(arch[3:5]),
        "pointer_divisibility": 16,
    }
    out = triton_compile.compile_request(req)
    import base64
    return base64.b64decode(out["cubin"]), out


def torch_reference(torch, name, tensors):
    if name == "softmax":
        return lambda: torch.softmax(tensors["x"], dim=-1, out=None)
    if name == "bias_gelu":
        x, b = tensors["x"], tensors["bias"]
        return lambda: torch.nn.functional.gelu(x + b)
    x, g = tensors["x"], tensors["gamma"]  # as bench/templates/entries.py times rmsnorm
    return lambda: torch.nn.functional.rms_norm(x, (x.shape[-1],), g, 1e-5)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--kernelevo", required=True)
    p.add_argument("--lockfile", required=True)
    p.add_argument("--rep-ms", type=int, default=200)
    p.add_argument("--no-compile", action="store_true")
    args = p.parse_args(argv)
    import torch

    torch.manual_seed(0)
    ct.use_device_sm_count(torch)
    lock = json.load(open(args.lockfile)) if os.path.exists(args.lockfile) else {}
    cap = torch.cuda.get_device_capability()
    arch = f"sm_{cap[0]}{cap[1]}"
    device_name = torch.cuda.get_device_name()
    drv = cuda_launch.Driver(torch.cuda.current_device())
    describe, timer = ct.make_clean_timer(torch, args.rep_ms)
    nvcc = ct.find_nvcc()
    rows = []
    for name, tsrc, tid, csrc, cid in PAIRS:
        try:
            tspec = ct.load_spec(args.kernelevo, tsrc, tid)
            cspec = ct.load_spec(args.kernelevo, csrc, cid)
        except Exception as e:  # noqa: BLE001
            rows.append({"kernel": name, "error": str(e)})
            continue
        tentry, _ = ct.lock_entry(lock, tid, arch, device_name)
        centry, _ = ct.lock_entry(lock, cid, arch, device_name)
        triton_images, cuda_images = {}, {}  # one compile per distinct winner

        def triton_image(params):
            key = json.dumps(params, sort_keys=True)
            if key not in triton_images:
                try:
                    cubin, meta = compile_triton(tspec, params, arch)
                    fn = drv.function(cubin, meta["name"])
                    drv.allow_dynamic_shared(fn, meta["shared"])
                    triton_images[key] = (fn, meta)
                except Exception as e:  # noqa: BLE001
                    triton_images[key] = ct.error_text(e)
            return triton_images[key]

        def cuda_image(params, size_define):
            # A one-size bucket's winner is compiled with its size defined, as kernelevo builds it.
            key = json.dumps([params or {}, size_define], sort_keys=True)
            if key not in cuda_images:
                try:
                    with tempfile.TemporaryDirectory() as tmp:
                        out = os.path.join(tmp, "k.cubin")
                        cubin = ct.compile_cubin(ct.nvcc_command(nvcc, os.path.join(ROOT, csrc), arch, params, cspec, out,
                                                                 [size_define] if size_define else []))
                    cuda_images[key] = (drv.function(cubin, cspec["kernel"]), None)
                except Exception as e:  # noqa: BLE001
                    cuda_images[key] = ct.error_text(e)
            return cuda_images[key]

        for dims in tspec.get("problems", []):
            # Each shape's winner: its bucket's for an entry with buckets (the nearest outside
            # all), as the build's launcher picks it.
            tserved = ct.served_by(tentry, dims)
            tparams = {**triton_defaults(tspec), **(tserved["params"] or {})}
            cserved = ct.served_by(centry, dims)
            cparams = cserved["params"]
            images = {"triton": triton_image(tparams), "cuda": cuda_image(cparams, cserved["size_define"])}
            row = {"kernel": name, "shape": dims, "triton_params": tparams, "cuda_params": cparams or "defaults",
                   "triton_bucket": tserved["label"], "cuda_bucket": cserved["label"]}
            try:
                r, c = dims["rows"], dims["cols"]
                x = torch.randn(r, c, device="cuda")
                tensors = {"x": x, "y": torch.empty_like(x), "gamma": torch.rand(c, device="cuda"),
                           "bias": torch.rand(c, device="cuda")}
                want = torch_reference(torch, name, tensors)()
                stream = torch.cuda.current_stream().cuda_stream

                def args_for(spec, extra_nulls):
                    vals = []
                    for a in spec["args"]:
                        if a["pointer"]:
                            vals.append(cuda_launch.pointer_arg(tensors[a["name"]].data_ptr()))
                        elif a["name"] == "eps":
                            vals.append(cuda_launch.scalar_arg("float", 1e-5))
                        else:
                            vals.append(cuda_launch.scalar_arg("int32_t", dims[a["name"]]))
                    return vals + [cuda_launch.pointer_arg(0) for _ in range(extra_nulls)]

                nbytes = spec_expr.evaluate(tspec["metrics"]["bytes"], dims) if tspec.get("metrics") else None
                for col in ("triton", "cuda"):
                    img = images[col]
                    if isinstance(img, str):
                        row[col] = {"error": img}
                        continue
                    fn, meta = img
                    if col == "triton":
                        grid = [spec_expr.evaluate(e, ct.names_for(dims, tparams)) for e in tspec["launch"]["grid"]]
                        launch = drv.launcher(fn, grid, [32 * meta["num_warps"]], meta["shared"], stream,
                                              args_for(tspec, meta.get("trailing_pointers", 2)),
                                              cluster=meta.get("num_ctas", 1))
                    else:
                        names = ct.names_for(dims, cparams or {})
                        defaults = cspec.get("defaults") or {}
                        for k, v in defaults.items():
                            names.setdefault(k, v)
                        grid, block, shared = ct.geometry(cspec, names)
                        launch = drv.launcher(fn, grid, block, shared, stream, args_for(cspec, 0))
                    tensors["y"].fill_(float("nan"))
                    launch()
                    torch.cuda.synchronize()
                    ok = torch.allclose(tensors["y"], want, rtol=1e-5, atol=1e-6)
                    us = timer(launch)
                    row[col] = {"us": us, "ok": bool(ok), "gbps": (nbytes / us / 1e3) if nbytes else None}
                eager = torch_reference(torch, name, tensors)
                row["eager"] = {"us": timer(eager)}
                if not args.no_compile:
                    try:
                        torch._dynamo.reset()
                        compiled = torch.compile(torch_reference(torch, name, tensors), dynamic=False)
                        compiled()
                        row["torch.compile"] = {"us": timer(compiled)}
                    except Exception as e:  # noqa: BLE001
                        row["torch.compile"] = {"error": ct.error_text(e, 300)}
            except Exception as e:  # noqa: BLE001
                row["error"] = ct.error_text(e) + "\n" + traceback.format_exc()[-800:]
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    result = {"device": device_name, "arch": arch, "timer": describe, "rows": rows}
    with open(os.path.join(args.out, "triton.json"), "w") as f:
        json.dump(result, f, indent=2)
    cols = ["triton", "cuda", "torch.compile", "eager"]

    def cell(v):
        if not v:
            return "-"
        if "error" in v:
            return "failed"
        return f"{v['us']:.1f} us" + ("" if v.get("ok", True) else " (WRONG)")

    lines = [f"# Triton templates beside their CUDA twins and PyTorch ({device_name})", "",
             f"Timer: {describe}.", "",
             "| kernel | shape (rows x cols) | Triton (kernelevo's winner) | CUDA (kernelevo's winner) | torch.compile | eager | Triton config |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "shape" not in r:
            lines.append(f"| {r['kernel']} | - | {r.get('error', '?')} | | | | |")
            continue
        shape = f"{r['shape']['rows']}x{r['shape']['cols']}"
        cfg = " ".join(f"{k}={v}" for k, v in sorted(r["triton_params"].items()))
        lines.append(f"| {r['kernel']} | {shape} | " + " | ".join(cell(r.get(c)) for c in cols) + f" | {cfg} |")
    with open(os.path.join(args.out, "triton.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
