# torch._scaled_mm (cuBLASLt FP8) timed alone beside bf16 A @ B, clean-L2 CUDA-event timer
import json, sys, torch
torch.manual_seed(0)
flush = torch.empty(256 * 1024 * 1024 // 4, device="cuda", dtype=torch.float32)
def bench(fn, reps=50):
    ts = []
    for _ in range(5): fn()
    for _ in range(reps):
        flush.fill_(1.0); flush.sum()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000)
    ts.sort(); return ts[len(ts) // 2]
rows = []
for M, N, K in [(4096, 4096, 4096), (8192, 1024, 4096), (4096, 11008, 4096), (2048, 4096, 11008), (16, 4096, 4096)]:
    a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn).t()  # column-major K x N
    sa = torch.tensor(0.5, device="cuda"); sb = torch.tensor(2.0, device="cuda")
    f8 = bench(lambda: torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))
    ab, bb = a.to(torch.bfloat16), b.to(torch.bfloat16).contiguous()
    bf = bench(lambda: ab @ bb)
    ref = (a.float() @ b.float()) * 1.0
    err = (torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16).float() - ref).abs().max().item()
    rows.append({"M": M, "N": N, "K": K, "scaled_mm_fp8_us": f8, "bf16_matmul_us": bf,
                 "fp8_tflops": 2 * M * N * K / f8 / 1e6, "max_abs_err_vs_fp32": err})
    print(rows[-1], flush=True)
json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, open(sys.argv[1], "w"), indent=1)
