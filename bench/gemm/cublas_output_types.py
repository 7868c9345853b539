#!/usr/bin/env python3
"""What cuBLAS costs with each output type, for a fair GEMM comparison: fp16/bf16 inputs
with the output in the inputs' type (A @ B), with an fp32 output from the GEMM itself
(torch.mm(..., out_dtype=torch.float32)), and the fp16/bf16 output cast to fp32 afterwards
((A @ B).float(), a second kernel), at the GEMM shapes of bench/templates and a decode-like
one, in one process, with compare_torch.py's cold-L2 timer and triton's do_bench.

  bench/gemm/cublas_output_types.py OUT_DIR

Writes OUT_DIR/cublas_output_types.md and .json.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "templates"))

import compare_torch as ct  # noqa: E402

SHAPES = [(4096, 4096, 4096), (8192, 1024, 4096), (4096, 11008, 4096), (2048, 4096, 11008), (16, 4096, 4096)]


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: cublas_output_types.py OUT_DIR")
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    import torch

    clean_desc, clean = ct.make_clean_timer(torch, 200)
    bench_desc, bench = ct.make_timer(torch, 25, 100)
    rows = []
    for dtype in (torch.float16, torch.bfloat16):
        for m, n, k in SHAPES:
            torch.manual_seed(0)
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            ways = {
                "A @ B (same type out)": lambda: a @ b,
                "torch.mm(out_dtype=float32)": lambda: torch.mm(a, b, out_dtype=torch.float32),
                "(A @ B).float()": lambda: (a @ b).float(),
            }
            ref = a.float() @ b.float()
            for name, fn in ways.items():
                got = fn().float()
                err = (got - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
                us = clean(fn)
                us_bench = bench(fn)
                tflops = 2 * m * n * k / us / 1e6
                rows.append({"dtype": str(dtype).replace("torch.", ""), "M": m, "N": n, "K": k, "way": name,
                             "us": us, "do_bench_us": us_bench, "tflops": tflops, "rel_max_error": err})
                print(f"{dtype} {m}x{n}x{k} {name}: {us:.1f} us ({tflops:.0f} TFLOP/s), do_bench {us_bench:.1f}",
                      flush=True)
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "timer": clean_desc,
            "second_timer": bench_desc}
    with open(os.path.join(out, "cublas_output_types.json"), "w") as f:
        json.dump({**meta, "rows": rows}, f, indent=1)
    with open(os.path.join(out, "cublas_output_types.md"), "w") as f:
        f.write("# cuBLAS by output type\n\n")
        for key, value in meta.items():
            f.write(f"- {key}: {value}\n")
        f.write("- command: bench/gemm/cublas_output_types.py OUT_DIR\n\n")
        f.write("| dtype | M | N | K | way | us | TFLOP/s | do_bench us | max error / max |\n")
        f.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['dtype']} | {r['M']} | {r['N']} | {r['K']} | {r['way']} | {r['us']:.1f} | "
                    f"{r['tflops']:.0f} | {r['do_bench_us']:.1f} | {r['rel_max_error']:.1e} |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
