# Is the decode kernel's lone-launch time at 1 x 4096 its code fetched cold? The same cubin
# from the same data-cold state (256 MiB written and read back before each run), with and
# without a launch of the same kernel on a 16-key problem right after the flush (code warm,
# data still cold). Not yet run: the session that wrote it had no device time left.
# From the repository root, on an sm_90 GPU with PyTorch:
#   kernelevo scan templates/attention_fwd.cu --format json > bench/.spec.json
#   python3 bench/results/2026-12-06-attention-decode-balanced-h100/probe/decode_code_cold.py
import json, os, sys, tempfile
sys.path.insert(0, "bench/templates")
import torch
import compare_torch as ct
import cuda_launch
import attention_sdpa as att
ct.DEVICE = "cuda"; ct.use_device_sm_count(torch)
drv = cuda_launch.Driver(); nvcc = ct.find_nvcc(); work = tempfile.mkdtemp()
spec = next(k for k in json.load(open("bench/.spec.json"))["kernels"] if k["id"] == "attention_decode_bf16")
base = {"ATT_DEC_BLOCKS": 132, "ATT_DEC_BN": 32, "ATT_DEC_CLUSTER": 1, "ATT_DEC_MIN_TILES": 2, "ATT_DEC_STAGES": 3, "ATT_DEC_WARPS_N": 4}
def setup(fn, params, d):
    q = torch.randn(d["batch"], d["seq_q"], d["heads"], d["head_dim"], device="cuda", dtype=torch.bfloat16)
    k = torch.randn(d["batch"], d["seq_k"], d["kv_heads"], d["head_dim"], device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k); o = torch.empty_like(q)
    lse = torch.empty(d["batch"], d["heads"], d["seq_q"], device="cuda", dtype=torch.float32)
    t = {"q": q, "k": k, "v": v, "o": o, "lse": lse}
    names = ct.names_for(d, {**spec.get("defaults", {}), **params})
    for a in spec["args"]:
        if a.get("scratch"):
            t[a["name"]] = torch.zeros(ct.spec_expr.evaluate(a["count"], names) * 4, dtype=torch.uint8, device="cuda")
    launch, _ = ct.spec_launcher(drv, fn, spec, names, ct.current_stream(torch), att.kernel_args(spec, t, d, drv, names))
    return launch, t
flush = ct.l2_flush(torch)
for compact in (0, 1):
    params = dict(base, ATT_DEC_COMPACT=compact)
    cubin = os.path.join(work, f"d{compact}.cubin")
    fn = drv.function(ct.compile_cubin(ct.nvcc_command(nvcc, att.SOURCE, "sm_90", params, spec, cubin)), "attention_decode_bf16")
    for seq_k in (4096, 32768):
        big, _ = setup(fn, params, att._shape(1, 1, seq_k, 32, 4, 0))
        tiny, _ = setup(fn, params, att._shape(1, 1, 16, 32, 4, 0))
        def warm():
            flush(); tiny()
        r = {}
        for name, before in (("flush", flush), ("flush+tiny launch", warm)):
            r[name] = round(ct.events_timer(torch, 30, before)(big), 2)
        print(f"compact {compact} 1x{seq_k}: {r}", flush=True)
