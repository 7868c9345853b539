# Why does the tuner time the batch-1 decode winner at 12.7 us and attention_sdpa.py at 18.5?
# One cubin of attention_decode_bf16, each launch timed alone by CUDA events after a different
# "before" (all leave the data cold):
#   torch flush         attention_sdpa.py's: a 256 MiB torch fill_, then a torch sum over it
#   + tiny launch       the same, then this kernel on a 16-key problem (its code warm)
#   kernelevo flush     ShapeRun::flush_l2's: cuMemsetD32Async of 2 x L2, then kev_read's loop
#   + code eviction     the same, then a kernel of about 250 KB of straight-line code on every SM
#   + torch sum         the kernelevo flush, then a torch sum of one element (its code only)
# If the kernelevo flush is ~6 us faster than the torch flush at 1 x 4096 for COMPACT=0 and
# the code eviction closes the gap, the tuner's flush should evict code too.
# Not yet run: the session that wrote it had no device time left. From the repository root,
# on an sm_90 GPU with PyTorch:
#   kernelevo scan templates/attention_fwd.cu --format json > bench/.spec.json
#   python3 bench/results/2026-12-06-attention-decode-balanced-h100/probe/decode_code_cold.py
import ctypes
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, "bench/templates")
import torch  # noqa: E402

import attention_sdpa as att  # noqa: E402
import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402

ct.DEVICE = "cuda"
ct.use_device_sm_count(torch)
drv = cuda_launch.Driver()
nvcc = ct.find_nvcc()
work = tempfile.mkdtemp()
spec = next(k for k in json.load(open("bench/.spec.json"))["kernels"] if k["id"] == "attention_decode_bf16")
props = torch.cuda.get_device_properties(0)
sms, l2 = props.multi_processor_count, props.L2_cache_size

# The runner's own read kernel, taken from its source so the probe flushes as the tuner does.
_runner = open("tool/cuda/helper_kernels.cpp").read()
_start = _runner.index('extern "C" __global__ void kev_read')
KEV_READ = _runner[_start:_runner.index(')CUDA"', _start)]
HELPERS = "typedef unsigned long long u64;\n" + KEV_READ + r"""
#define F(i) a = fmaf(a, 1.0001f + (i) * 1e-7f, 1e-9f * (i)); b = fmaf(b, 0.9999f - (i) * 1e-7f, 2e-9f * (i));
#define F16(i) F(i) F(i+1) F(i+2) F(i+3) F(i+4) F(i+5) F(i+6) F(i+7) F(i+8) F(i+9) F(i+10) F(i+11) F(i+12) F(i+13) F(i+14) F(i+15)
#define F256(i) F16(i) F16(i+16) F16(i+32) F16(i+48) F16(i+64) F16(i+80) F16(i+96) F16(i+112) \
  F16(i+128) F16(i+144) F16(i+160) F16(i+176) F16(i+192) F16(i+208) F16(i+224) F16(i+240)
extern "C" __global__ void code_evict(float* sink) {
  float a = threadIdx.x, b = blockIdx.x;
  F256(0) F256(256) F256(512) F256(768) F256(1024) F256(1280) F256(1536) F256(1792)
  F256(2048) F256(2304) F256(2560) F256(2816) F256(3072) F256(3328) F256(3584) F256(3840)
  if (a + b == -1.2345e-30f) sink[0] = a + b;
}
"""
src = os.path.join(work, "helpers.cu")
open(src, "w").write(HELPERS)
subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-O3", "-o", src + ".cubin", src], check=True)
image = open(src + ".cubin", "rb").read()
kev_read, code_evict = drv.function(image, "kev_read"), drv.function(image, "code_evict")
flush_buf = torch.empty(max(l2, 1 << 20) * 2 // 4, dtype=torch.float32, device="cuda")
sink = torch.zeros(1, device="cuda")
stream = ct.current_stream(torch)
read = drv.launcher(kev_read, [sms * 8], [256], 0, stream,
                    [cuda_launch.pointer_arg(flush_buf.data_ptr()), ctypes.c_uint64(flush_buf.numel() // 4),
                     cuda_launch.pointer_arg(sink.data_ptr())])
evict = drv.launcher(code_evict, [sms * 4], [64], 0, stream, [cuda_launch.pointer_arg(sink.data_ptr())])
one = torch.ones(1, device="cuda")


def kernelevo_flush():
    drv._check(drv.lib.cuMemsetD32Async(ctypes.c_uint64(flush_buf.data_ptr()), ctypes.c_uint(0x13572468),
                                        ctypes.c_size_t(flush_buf.numel()), ctypes.c_void_p(stream)),
               "cuMemsetD32Async")
    read()


torch_flush = ct.l2_flush(torch)


def setup(fn, params, d):
    q = torch.randn(d["batch"], d["seq_q"], d["heads"], d["head_dim"], device="cuda", dtype=torch.bfloat16)
    k = torch.randn(d["batch"], d["seq_k"], d["kv_heads"], d["head_dim"], device="cuda", dtype=torch.bfloat16)
    t = {"q": q, "k": k, "v": torch.randn_like(k), "o": torch.empty_like(q),
         "lse": torch.empty(d["batch"], d["heads"], d["seq_q"], device="cuda", dtype=torch.float32)}
    names = ct.names_for(d, {**spec.get("defaults", {}), **params})
    for a in spec["args"]:
        if a.get("scratch"):
            n = ct.spec_expr.evaluate(a["count"], names)
            t[a["name"]] = torch.zeros(n * 4, dtype=torch.uint8, device="cuda")
    launch, _ = ct.spec_launcher(drv, fn, spec, names, stream, att.kernel_args(spec, t, d, drv, names))
    return launch, t


base = {"ATT_DEC_BLOCKS": 132, "ATT_DEC_BN": 32, "ATT_DEC_CLUSTER": 1, "ATT_DEC_MIN_TILES": 2,
        "ATT_DEC_STAGES": 3, "ATT_DEC_WARPS_N": 4}
print(f"{torch.cuda.get_device_name()}, {sms} SMs, L2 {l2 >> 20} MiB", flush=True)
for compact in (0, 1):
    params = dict(base, ATT_DEC_COMPACT=compact)
    cubin = os.path.join(work, f"decode{compact}.cubin")
    fn = drv.function(ct.compile_cubin(ct.nvcc_command(nvcc, att.SOURCE, "sm_90", params, spec, cubin)),
                      "attention_decode_bf16")
    tiny, _keep_tiny = setup(fn, params, att._shape(1, 1, 16, 32, 4, 0))
    befores = {
        "torch flush": torch_flush,
        "+ tiny launch": lambda: (torch_flush(), tiny()),
        "kernelevo flush": kernelevo_flush,
        "+ code eviction": lambda: (kernelevo_flush(), evict()),
        "+ torch sum": lambda: (kernelevo_flush(), torch.sum(one)),
    }
    for seq_k in (4096, 32768):
        big, _keep_big = setup(fn, params, att._shape(1, 1, seq_k, 32, 4, 0))
        times = {name: round(ct.events_timer(torch, 40, before)(big), 2) for name, before in befores.items()}
        print(f"COMPACT={compact} 1 x {seq_k}: {times}", flush=True)
