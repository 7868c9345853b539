# Issue 22's mid-size shapes: ours (the H200 winners, and their load/store cache-hint variants)
# beside torch.compile, by the clean events timer, the same with the write-back the run leaves
# in the L2 charged, the dirty events timer, and do_bench. One process, same inputs.
import itertools
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, "bench/templates")
import torch  # noqa: E402

import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402
import entries  # noqa: E402

ct.DEVICE = "cuda"
ct.use_device_sm_count(torch)
drv = cuda_launch.Driver()
nvcc = ct.find_nvcc()
work = tempfile.mkdtemp()
specs = {k["id"]: k for k in json.load(open("bench/.spec-rows.json"))["kernels"]}
lock = json.load(open("bench/results/2026-12-06-templates-dirty-h200/kernelevo.lock.json"))
stream = ct.current_stream(torch)
ct.install_l2_demotion(torch, drv, nvcc, work)
REP = 40
timers = {
    "clean": ct.make_clean_timer(torch, REP)[1],
    "charged": ct.make_clean_timer(torch, REP, charge_writeback=True)[1],
    "dirty": ct.make_dirty_timer(torch, REP)[1],
    "do_bench": ct.make_timer(torch, 10, REP)[1],
}
CASES = [
    ("bias_gelu", "bias_gelu", "BIAS_GELU", {"rows": 4096, "cols": 4096}),
    ("layernorm_bf16", "layernorm_rows_bf16", "LAYERNORM_BF16", {"rows": 32768, "cols": 1024}),
    ("softmax", "softmax_rows", "SOFTMAX", {"rows": 32768, "cols": 1024}),
]
rows = []
for template, kid, prefix, dims in CASES:
    spec = specs[kid]
    entry = next(e for e in entries.ENTRIES if e.kernel == kid)
    won = ct.winner_params(lock, kid, "sm_90", "NVIDIA H200", dims)[0] or {}
    base = {**spec.get("defaults", {}), **won}
    variants = []
    for lh, sh in itertools.product([0, 1, 2, 3], [0, 1, 2]):
        p = dict(base)
        p[prefix + "_LOAD_HINT"] = lh
        p[prefix + "_STORE_HINT"] = sh
        variants.append(p)

    def build(p, i=[0]):
        i[0] += 1
        cubin = os.path.join(work, f"{kid}_{len(rows)}_{i[0]}_{p[prefix + '_LOAD_HINT']}{p[prefix + '_STORE_HINT']}.cubin")
        return ct.compile_cubin(ct.nvcc_command(nvcc, "templates/" + template + ".cu", "sm_90", p, spec, cubin))

    with ThreadPoolExecutor(12) as pool:
        images = list(pool.map(build, variants))
    values, outputs, _ = ct.make_args(torch, spec, dims, [base])
    ct.set_timed_tensors(torch, [v for v in values.values() if torch.is_tensor(v)])
    compiled = ct.compile_torch_fn(torch, entry.torch_fn)
    expected = entry.torch_fn(values, dims)
    for _ in range(3):
        compiled(values, dims)
    torch.cuda.synchronize()
    res = {"torch.compile": {k: t(lambda: compiled(values, dims)) for k, t in timers.items()}}
    out0 = next(values[a["name"]] for a in spec["args"] if a.get("output"))
    res["copy x->y"] = {k: t(lambda: out0.copy_(values["x"])) for k, t in timers.items()}
    for p, image in zip(variants, images):
        fn = drv.function(image, spec["kernel"])
        ours, _ = ct.spec_launcher(drv, fn, spec, ct.names_for(dims, p), stream, ct.kernel_args(spec, values))
        ours()
        torch.cuda.synchronize()
        got = [values[a["name"]] for a in spec["args"] if a.get("output")]
        err = max(float((g.float().view(-1) - e.float().reshape(-1)).abs().max()) for g, e in zip(got, expected))
        label = f"L{p[prefix + '_LOAD_HINT']}S{p[prefix + '_STORE_HINT']}" + (" (winner)" if p == base else "")
        res[label] = {k: t(ours) for k, t in timers.items()}
        res[label]["max_err"] = err
    print(f"== {template} {dims} base {won}", flush=True)
    print(f"{'':18}" + "".join(f"{k:>10}" for k in timers), flush=True)
    for label, r in res.items():
        print(f"{label:18}" + "".join(f"{r[k]:10.1f}" for k in timers) + (f"  err {r['max_err']:.2e}" if "max_err" in r else ""), flush=True)
    ct.set_timed_tensors(torch, [])
    rows.append({"template": template, "dims": dims, "base": won, "results": res})
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "hint_probe.json"), "w"), indent=1)
