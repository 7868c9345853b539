"""Where a lone cold decode launch spends its time: our kernel and cuDNN under several 'before'
states (clean flush; clean flush + an empty kernel asking for much shared memory; + an empty
kernel asking for none), and a sweep of configs."""
import json, os, sys, subprocess, tempfile
sys.path.insert(0, "bench/templates")
import torch
import compare_torch as ct, cuda_launch, spec_expr, attention_sdpa as A

ct.DEVICE = "cuda"
drv = cuda_launch.Driver()
spec = [k for k in json.load(open("bench/.spec.json"))["kernels"] if k["id"] == "attention_decode_bf16"][0]
nvcc = ct.find_nvcc()
work = tempfile.mkdtemp()
prim_src = os.path.join(work, "p.cu")
open(prim_src, "w").write('extern "C" __global__ void primer(int* p){ extern __shared__ int s[]; if (p) s[threadIdx.x] = 1; }\n')
subprocess.run([nvcc, "-cubin", "-arch=sm_90", prim_src, "-o", work + "/p.cubin"], check=True)
pfn = drv.function(open(work + "/p.cubin", "rb").read(), "primer")
drv.allow_dynamic_shared(pfn, 227 * 1024)
stream = ct.current_stream(torch)
null = cuda_launch.pointer_arg(0)
prim_big = drv.launcher(pfn, [132 * 2], [128], 227 * 1024, stream, [null])
prim_zero = drv.launcher(pfn, [132 * 2], [128], 0, stream, [cuda_launch.pointer_arg(0)])
flush = ct.l2_flush(torch)
REP = 30
timers = {
    "clean": ct.events_timer(torch, REP, flush),
}
_, dob = ct.make_timer(torch, 25, REP)

ONLY = os.environ.get("ONLY")
configs = {
    "joint": dict(ATT_DEC_BLOCKS=132, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=2, ATT_DEC_STAGES=3, ATT_DEC_WARPS_N=4),
    "b1win": dict(ATT_DEC_BLOCKS=2112, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=2, ATT_DEC_STAGES=3, ATT_DEC_WARPS_N=4),
    "w4s2": dict(ATT_DEC_BLOCKS=528, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=1, ATT_DEC_STAGES=2, ATT_DEC_WARPS_N=4),
    "w4s1": dict(ATT_DEC_BLOCKS=528, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=1, ATT_DEC_STAGES=1, ATT_DEC_WARPS_N=4),
    "many": dict(ATT_DEC_BLOCKS=2112, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=1, ATT_DEC_STAGES=1, ATT_DEC_WARPS_N=1),
    "w4s2b264": dict(ATT_DEC_BLOCKS=264, ATT_DEC_BN=32, ATT_DEC_MIN_TILES=1, ATT_DEC_STAGES=2, ATT_DEC_WARPS_N=4),
}
lockp = os.environ.get("LOCK")
if lockp and os.path.exists(lockp):
    e = json.load(open(lockp))["kernels"]["attention_decode_bf16"]["targets"]
    for arch in e.values():
        for dev in arch.values():
            configs["tuned"] = dev["params"]
            print("tuned:", dev["params"], flush=True)
if ONLY:
    configs = {ONLY: configs[ONLY]}
import concurrent.futures as cf
with cf.ThreadPoolExecutor(8) as ex:
    images = dict(zip(configs, ex.map(lambda kv: ct.compile_cubin(ct.nvcc_command(nvcc, "templates/attention_fwd.cu", "sm_90", {**kv[1], "ATT_ONLY": 1}, spec, f"{work}/{kv[0]}.cubin")), configs.items())))
fns = {name: drv.function(img, "attention_decode_bf16") for name, img in images.items()}

NCU = os.environ.get("NCU")
shapes = [dict(batch=1, seq_q=1, seq_k=4096, heads=32, kv_heads=4, head_dim=128, causal=0),
          dict(batch=1, seq_q=1, seq_k=32768, heads=32, kv_heads=4, head_dim=128, causal=0),
          dict(batch=32, seq_q=1, seq_k=4096, heads=32, kv_heads=4, head_dim=128, causal=0),
          dict(batch=32, seq_q=1, seq_k=32768, heads=32, kv_heads=4, head_dim=128, causal=0)]
if NCU:
    shapes = shapes[:1]
res = []
for d in shapes:
    torch.manual_seed(0)
    q = torch.randn(d["batch"], 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(d["batch"], d["seq_k"], 4, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    o = torch.empty_like(q)
    lse = torch.empty(d["batch"], 32, 1, device="cuda")
    ro, rl = A.reference(torch, q, k, v, d)
    if NCU:
        shapes_done = True
    for name, p in configs.items():
        names = ct.names_for(d, {**spec["defaults"], **p})
        tensors = {"q": q, "k": k, "v": v, "o": o, "lse": lse}
        for a in spec["args"]:
            if a.get("scratch"):
                tensors[a["name"]] = torch.zeros(spec_expr.evaluate(a["count"], names) * 4, dtype=torch.uint8, device="cuda")
        try:
            launch, geo = ct.spec_launcher(drv, fns[name], spec, names, stream, A.kernel_args(spec, tensors, d, drv, names))
        except Exception as e:
            print(name, "failed:", e, flush=True)
            continue
        o.fill_(float("nan"))
        launch(); torch.cuda.synchronize()
        ok = torch.allclose(o.float(), ro, rtol=2e-2, atol=2e-2)
        row = {"shape": f"b{d['batch']}x{d['seq_k']}", "cfg": name, "grid": geo["grid"], "smem": geo["shared_bytes"], "ok": ok}
        if NCU:
            for _ in range(3):
                flush(); launch()
            torch.cuda.synchronize()
            print(json.dumps(row), flush=True)
            continue
        for tn, t in timers.items():
            row[tn] = round(t(launch), 2)
        row["do_bench"] = round(dob(launch), 2)
        print(json.dumps(row), flush=True)
        res.append(row)
    for name, fn, r in A.sdpa_calls(torch, q, k, v, d):
        if fn is None or not name.startswith("cudnn"):
            continue
        row = {"shape": f"b{d['batch']}x{d['seq_k']}", "cfg": name}
        if NCU:
            for _ in range(3):
                flush(); fn()
            torch.cuda.synchronize()
            continue
        for tn, t in timers.items():
            row[tn] = round(t(fn), 2)
        row["do_bench"] = round(dob(fn), 2)
        print(json.dumps(row), flush=True)
        res.append(row)
if NCU:
    sys.exit(0)
empty = {"cfg": "empty-kernel(0 smem)"}
for tn, t in timers.items():
    empty[tn] = round(t(prim_zero), 2)
print(json.dumps(empty), flush=True)
res.append(empty)
json.dump(res, open(os.environ.get("OUT", ".") + "/probe.json", "w"), indent=1)
