# Under ncu (the spec JSON of `kernelevo scan` as argv[1], default bench/.spec-rows.json): ours (the H200 winners of 2026-12-06-templates-dirty-h200) and torch.compile's kernel
# at the mid-size shapes where torch.compile leads; one launch each inside cudaProfilerStart/Stop.
import json
import os
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
specs = {k["id"]: k for k in json.load(open(sys.argv[1] if len(sys.argv) > 1 else "bench/.spec-rows.json"))["kernels"]}
lock = json.load(open("bench/results/2026-12-06-templates-dirty-h200/kernelevo.lock.json"))
stream = ct.current_stream(torch)
CASES = [
    ("bias_gelu", "bias_gelu", {"rows": 4096, "cols": 4096}),
    ("layernorm_bf16", "layernorm_rows_bf16", {"rows": 32768, "cols": 1024}),
    ("softmax", "softmax_rows", {"rows": 32768, "cols": 1024}),
]
runs = []
for template, kid, dims in CASES:
    spec = specs[kid]
    entry = next(e for e in entries.ENTRIES if e.kernel == kid)
    params = {**spec.get("defaults", {}), **(ct.winner_params(lock, kid, "sm_90", "NVIDIA H200", dims)[0] or {})}
    cubin = os.path.join(work, kid + ".cubin")
    fn = drv.function(ct.compile_cubin(ct.nvcc_command(nvcc, "templates/" + template + ".cu", "sm_90", params,
                                                       spec, cubin)), spec["kernel"])
    values, outputs, _ = ct.make_args(torch, spec, dims, [params])
    ours, geo = ct.spec_launcher(drv, fn, spec, ct.names_for(dims, params), stream, ct.kernel_args(spec, values))
    compiled = ct.compile_torch_fn(torch, entry.torch_fn)
    for _ in range(3):
        compiled(values, dims)
        ours()
    torch.cuda.synchronize()
    print(template, dims, params, geo, flush=True)
    runs.append((ours, compiled, values, dims))
torch.cuda.cudart().cudaProfilerStart()
for ours, compiled, values, dims in runs:
    ours()
    compiled(values, dims)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
