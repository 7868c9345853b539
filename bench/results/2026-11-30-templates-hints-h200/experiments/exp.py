#!/usr/bin/env python3
"""Sweep of experimental softmax / layernorm-bf16 variants beside PyTorch (same process)."""
import concurrent.futures as cf, itertools, json, math, os, subprocess, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = HERE
while not os.path.isfile(os.path.join(ROOT, "templates", "softmax.cu")):
    ROOT = os.path.dirname(ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench", "templates"))
import torch, torch.nn.functional as F
import cuda_launch, compare_torch
OUT = os.environ.get("OUT", "/tmp/exp-out")
os.makedirs(OUT, exist_ok=True)
CUBINS = os.path.join("/tmp", "exp-cubins"); os.makedirs(CUBINS, exist_ok=True)
NVCC = compare_torch.find_nvcc()
log = open(os.path.join(OUT, "exp.jsonl"), "a")
drv = cuda_launch.Driver(0)
_, clean = compare_torch.make_clean_timer(torch, 30)
_, dobench = compare_torch.make_timer(torch, 10, 30)
stream = torch.cuda.current_stream().cuda_stream
T0 = time.time()

def say(*a):
    print(f"[{time.time()-T0:6.1f}s]", *a, flush=True)

def compile_one(src, defs):
    name = os.path.basename(src).replace(".cu", "") + "_" + "_".join(f"{k}{v}" for k, v in sorted(defs.items()))
    out = os.path.join(CUBINS, name + ".cubin")
    if not os.path.exists(out):
        cmd = [NVCC, "-cubin", "-arch=sm_90", "-std=c++17"] + [f"-D{k if k.isupper() and len(k) > 5 and not k.startswith('MAXRT') else 'EX_' + k}={v}" for k, v in sorted(defs.items())] + [src, "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return None, r.stderr[-400:]
    return out, None

def compile_all(jobs):
    with cf.ThreadPoolExecutor(16) as ex:
        return list(ex.map(lambda j: compile_one(*j), jobs))

def rt_of(cols, v, u, maxrt):
    return min(maxrt, 32 * max(1, math.ceil(cols / (32 * v * u))))

def geometry(rows, cols, d):
    rt = rt_of(cols, d["V"], d["U"], d["MAXRT"])
    gpb = max(d["BLOCK"], rt) // rt
    return [math.ceil(rows / (gpb * d.get("NR", 1)))], [gpb * rt]

def time_set(case, shape, variants, torch_fn, copy_fn, rounds=2, tag=""):
    """variants: list of (label, launch). Times torch, copy and each; logs; returns {label: clean median}."""
    res = {}
    for rnd in range(rounds):
        for label, fn in [("torch", torch_fn), ("copy", copy_fn)] + variants:
            c = clean(fn); d = dobench(fn)
            res.setdefault(label, []).append((c, d))
    summary = {}
    for label, vals in res.items():
        c = sorted(v[0] for v in vals)[len(vals) // 2] if len(vals) > 2 else min(v[0] for v in vals)
        d = min(v[1] for v in vals)
        summary[label] = (c, d)
        log.write(json.dumps({"case": case, "shape": shape, "tag": tag, "label": label, "clean_us": [v[0] for v in vals], "dobench_us": [v[1] for v in vals]}) + "\n")
    log.flush()
    return summary

def report(case, shape, summary, top=25):
    t = summary["torch"]; cp = summary["copy"]
    say(f"== {case} {shape}: torch clean {t[0]:.2f} do_bench {t[1]:.2f}; copy clean {cp[0]:.2f}")
    items = sorted(((k, v) for k, v in summary.items() if k not in ("torch", "copy")), key=lambda kv: kv[1][0])
    for k, v in items[:top]:
        say(f"   {v[0]:7.2f} {v[1]:7.2f}  torch/ours clean {t[0]/v[0]:.3f} dob {t[1]/v[1]:.3f}  copy/ours {cp[0]/v[0]:.3f}  {k}")
    return [k for k, _ in items]

def make_variant(path, kname, d, rows, cols, args):
    fn = drv.function(open(path, "rb").read(), kname)
    grid, block = geometry(rows, cols, d)
    return drv.launcher(fn, grid, block, 0, stream, args)

def label(d):
    return " ".join(f"{k}={v}" for k, v in sorted(d.items()))

# ---------------------------------------------------------------- softmax fp32
def softmax_case(rows, cols, configs, tag, ref_template=True):
    torch.manual_seed(1)
    x = torch.randn(rows, cols, device="cuda"); y = torch.empty_like(x); yc = torch.empty_like(x)
    want = torch.softmax(x, -1)
    args = [cuda_launch.pointer_arg(x.data_ptr()), cuda_launch.pointer_arg(y.data_ptr()),
            cuda_launch.scalar_arg("int32_t", rows), cuda_launch.scalar_arg("int32_t", cols)]
    jobs = [(os.path.join(HERE, "exp_softmax.cu"), d) for d in configs]
    tmpl = []
    if ref_template:
        for p in ({"SOFTMAX_BLOCK": 128, "SOFTMAX_MAX_ROW_THREADS": 512, "SOFTMAX_VEC": 4, "SOFTMAX_UNROLL": 4},):
            tmpl.append(p)
            jobs.append((os.path.join(ROOT, "templates", "softmax.cu"), p))
    built = compile_all(jobs)
    variants = []
    for (src, d), (path, err) in zip(jobs, built):
        if path is None:
            say("compile failed", label(d), err); continue
        if "SOFTMAX_BLOCK" in d:
            g = {"V": d["SOFTMAX_VEC"], "U": d["SOFTMAX_UNROLL"], "BLOCK": d["SOFTMAX_BLOCK"], "MAXRT": d["SOFTMAX_MAX_ROW_THREADS"]}
            fn = make_variant(path, "softmax_rows", g, rows, cols, args); lab = "TEMPLATE " + label(d)
        else:
            fn = make_variant(path, "softmax_x", d, rows, cols, args); lab = label(d)
        y.fill_(float("nan")); fn(); torch.cuda.synchronize()
        if not torch.allclose(y, want, rtol=1e-5, atol=1e-6):
            say("MISMATCH", lab, (y - want).abs().max().item()); continue
        variants.append((lab, fn))
    say(f"softmax {rows}x{cols} {tag}: {len(variants)} variants")
    s = time_set("softmax", f"{rows}x{cols}", variants, lambda: torch.softmax(x, -1), lambda: yc.copy_(x), tag=tag)
    return report("softmax", f"{rows}x{cols} {tag}", s)

# ---------------------------------------------------------------- layernorm bf16
def ln_case(rows, cols, configs, tag, ref_template=True, tmpl_params=None):
    torch.manual_seed(1)
    x = torch.randn(rows, cols, device="cuda").bfloat16(); y = torch.empty_like(x); yc = torch.empty_like(x)
    g = torch.rand(cols, device="cuda").bfloat16(); b = torch.randn(cols, device="cuda").bfloat16()
    want = F.layer_norm(x, (cols,), g, b, 1e-5)
    args = [cuda_launch.pointer_arg(t.data_ptr()) for t in (x, g, b, y)] + [
        cuda_launch.scalar_arg("int32_t", rows), cuda_launch.scalar_arg("int32_t", cols), cuda_launch.scalar_arg("float", 1e-5)]
    jobs = [(os.path.join(HERE, "exp_layernorm_bf16.cu"), d) for d in configs]
    for tp in (tmpl_params or []):
        jobs.append((os.path.join(ROOT, "templates", "layernorm_bf16.cu"), tp))
    built = compile_all(jobs)
    variants = []
    for (src, d), (path, err) in zip(jobs, built):
        if path is None:
            say("compile failed", label(d), err); continue
        if "LAYERNORM_BF16_BLOCK" in d:
            gg = {"V": d["LAYERNORM_BF16_VEC"], "U": d["LAYERNORM_BF16_UNROLL"], "BLOCK": d["LAYERNORM_BF16_BLOCK"], "MAXRT": d["LAYERNORM_BF16_MAX_ROW_THREADS"]}
            fn = make_variant(path, "layernorm_rows_bf16", gg, rows, cols, args); lab = "TEMPLATE " + label(d)
        else:
            fn = make_variant(path, "layernorm_x", d, rows, cols, args); lab = label(d)
        y.fill_(float("nan")); fn(); torch.cuda.synchronize()
        if not torch.allclose(y.float(), want.float(), rtol=1.6e-2, atol=1e-2):
            say("MISMATCH", lab, (y.float() - want.float()).abs().max().item()); continue
        variants.append((lab, fn))
    say(f"layernorm_bf16 {rows}x{cols} {tag}: {len(variants)} variants")
    s = time_set("layernorm_bf16", f"{rows}x{cols}", variants, lambda: F.layer_norm(x, (cols,), g, b, 1e-5), lambda: yc.copy_(x), tag=tag)
    return report("layernorm_bf16", f"{rows}x{cols} {tag}", s)

def parse(lab):
    return {k: int(v) for k, v in (p.split("=") for p in lab.split())}

def hints(top, extra):
    out = []
    for lab in top:
        d = parse(lab)
        for ldh, sth in itertools.product([0, 1, 2, 3], [0, 1, 2]):
            if (ldh, sth) != (d.get("LDH", 0), d.get("STH", 0)):
                out.append({**d, "LDH": ldh, "STH": sth, **extra})
    return out

def main():
  which = sys.argv[1:] or ["softmax", "layernorm"]
  _main(which)

def _main(which):
    if "softmax" in which:
        cfgs = []
        for v, vu, blk, nr in itertools.product([1, 2, 4], [8, 16, 32], [128, 256, 512], [1, 2, 4]):
            u = vu // v
            if u < 1 or u > 32 or (nr == 4 and vu == 32): continue
            cfgs.append({"V": v, "U": u, "BLOCK": blk, "MAXRT": 1024, "NR": nr})
        ranked = softmax_case(32768, 1024, cfgs, "stage1")
        top = [l for l in ranked if not l.startswith("TEMPLATE")][:6]
        ranked2 = softmax_case(32768, 1024, hints(top, {}), "stage2-hints", ref_template=True)
        best = [l for l in ranked if not l.startswith("TEMPLATE")][:3] + [l for l in ranked2 if not l.startswith("TEMPLATE")][:3]
        for rows, cols in ((4096, 8192), (8192, 16384)):
            cf_ = []
            for l in best:
                d = parse(l)
                for vu in (16, 32):
                    u = vu // d["V"]
                    if u >= 1: cf_.append({**d, "U": u, "NR": 1})
            cf_ = [dict(t) for t in {tuple(sorted(c.items())) for c in cf_}]
            softmax_case(rows, cols, cf_, "stage3")
    if "layernorm" in which:
        cfgs = []
        for v, vu, blk, nr, pg, sh in itertools.product([4, 8], [8, 16, 32, 64], [128, 512], [1, 2], [0, 1], [0, 1]):
            u = vu // v
            if u < 1: continue
            cfgs.append({"V": v, "U": u, "BLOCK": blk, "MAXRT": 1024, "NR": nr, "PG": pg, "SH": sh})
        ranked = ln_case(4096, 8192, cfgs, "stage1")
        top = [l for l in ranked if not l.startswith("TEMPLATE")][:6]
        ranked2 = ln_case(4096, 8192, hints(top, {}), "stage2-hints")
        best = [l for l in ranked if not l.startswith("TEMPLATE")][:4] + [l for l in ranked2 if not l.startswith("TEMPLATE")][:4]
        ln_case(32768, 1024, [parse(l) for l in best], "stage3")
    say("done")

if __name__ == '__main__':
    main()
