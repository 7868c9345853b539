# Does a cold instruction cache explain the ~2 us by which torch.compile's kernels beat ours at
# the mid-size shapes of issue 22 (../../2026-12-06-templates-dirty-h200)? Ours (the H200
# winners of that run) and torch.compile's kernel for the same PyTorch code, each launch
# timed alone by CUDA events after:
#   dirty            bench/templates' dirty timer: a 256 MiB torch fill_
#   dirty + evict    the same, then kernelevo's kev_evict_code (256 KiB of code on every SM)
#   dirty + warm     the same, then our kernel on a one-row problem (its code warm; ours only)
#   clean            the comparison's clean timer: the fill_ and a torch sum over the buffer
#   clean + evict    the same, then kev_evict_code
# From the repository root on an sm_90 GPU with PyTorch, after
#   kernelevo scan templates/bias_gelu.cu templates/layernorm_bf16.cu templates/softmax.cu \
#     --format json > bench/.spec-rows.json
import json
import os
import re
import subprocess
import sys
import tempfile

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

helpers = open("tool/cuda/helper_kernels.cpp").read()
evict_src = re.search(r'kEvictCodeSource = R"CUDA\((.*?)\)CUDA"', helpers, re.S).group(1)
src = os.path.join(work, "evict.cu")
open(src, "w").write(evict_src)
subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-O3", "-o", src + ".cubin", src], check=True)
sink = torch.zeros(1, device="cuda")
sms = torch.cuda.get_device_properties(0).multi_processor_count
evict = drv.launcher(drv.function(open(src + ".cubin", "rb").read(), "kev_evict_code"), [sms * 2], [32], 0,
                     stream, [cuda_launch.pointer_arg(sink.data_ptr())])
dirty, clean = ct.l2_flush(torch, clean=False), ct.l2_flush(torch)

CASES = [  # template, spec id, timed shape, one-row shape (the same code path)
    ("bias_gelu", "bias_gelu", {"rows": 4096, "cols": 4096}, {"rows": 1, "cols": 4096}),
    ("layernorm_bf16", "layernorm_rows_bf16", {"rows": 32768, "cols": 1024}, {"rows": 1, "cols": 1024}),
    ("softmax", "softmax_rows", {"rows": 32768, "cols": 1024}, {"rows": 1, "cols": 1024}),
]
print(f"{torch.cuda.get_device_name()}, {sms} SMs", flush=True)
for template, kid, dims, tiny_dims in CASES:
    spec = specs[kid]
    entry = next(e for e in entries.ENTRIES if e.kernel == kid)
    winner = ct.winner_params(lock, kid, "sm_90", "NVIDIA H200", dims)[0] or {}
    params = {**spec.get("defaults", {}), **winner}
    cubin = os.path.join(work, kid + ".cubin")
    fn = drv.function(ct.compile_cubin(ct.nvcc_command(nvcc, "templates/" + template + ".cu", "sm_90", params,
                                                       spec, cubin)), spec["kernel"])

    def launcher(d):
        values, outputs, _ = ct.make_args(torch, spec, d, [params])
        launch, _ = ct.spec_launcher(drv, fn, spec, ct.names_for(d, params), stream, ct.kernel_args(spec, values))
        return launch, values, outputs

    ours, values, outputs = launcher(dims)
    tiny, _tiny_values, _ = launcher(tiny_dims)
    expected = entry.torch_fn(values, dims)
    ours()
    err, agree = ct.compare(torch, [(a["name"], t, w) for (a, t), w in zip(outputs, expected)], 2e-2, 1e-2)
    compiled = ct.compile_torch_fn(torch, entry.torch_fn)
    for _ in range(3):
        compiled(values, dims)
    torch.cuda.synchronize()
    befores = {
        "dirty": dirty,
        "dirty + evict": lambda: (dirty(), evict()),
        "dirty + warm": lambda: (dirty(), tiny()),
        "clean": clean,
        "clean + evict": lambda: (clean(), evict()),
    }
    print(f"{template} {dims} params {winner} (agrees with eager: {agree}, max error {err:.3g})", flush=True)
    for name, before in befores.items():
        timer = ct.events_timer(torch, 60, before)
        mine = timer(ours)
        theirs = timer(lambda: compiled(values, dims)) if name != "dirty + warm" else float("nan")
        print(f"  {name:14s} ours {mine:7.2f} us   torch.compile {theirs:7.2f} us", flush=True)
