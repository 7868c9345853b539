import sys, os, itertools
sys.argv = sys.argv[:1]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../.."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import exp, torch, cuda_launch
n = 1 << 28
torch.manual_seed(1)
x = torch.randint(-8, 9, (n,), device="cuda").float()
out = torch.empty(1, device="cuda"); partials = torch.zeros(8192, dtype=torch.float64, device="cuda"); counter = torch.zeros(1, dtype=torch.int32, device="cuda")
xc = torch.empty(1, device="cuda")
want = x.sum()
args = [cuda_launch.pointer_arg(t.data_ptr()) for t in (x, out, partials, counter)] + [cuda_launch.scalar_arg("int32_t", n)]
jobs = []
for load, grid, block, unroll in itertools.product([0, 1, 2], [256, 528, 1056, 2112], [256, 512], [4, 8]):
    jobs.append((os.path.join(ROOT, "templates/sum.cu"), {"SUM_LOAD": load, "SUM_GRID": grid, "SUM_BLOCK": block, "SUM_UNROLL": unroll, "SUM_VEC": 4}))
built = exp.compile_all(jobs)
variants = []
for (src, d), (path, err) in zip(jobs, built):
    if path is None:
        exp.say("compile failed", d, err); continue
    fn = exp.drv.function(open(path, "rb").read(), "sum_reduce")
    launch = exp.drv.launcher(fn, [d["SUM_GRID"]], [d["SUM_BLOCK"]], 0, exp.stream, args)
    out.fill_(float("nan")); launch(); torch.cuda.synchronize()
    if out.item() != want.item():
        exp.say("MISMATCH", d); continue
    variants.append((exp.label(d), launch))
s = exp.time_set("sum", "2^28", variants, lambda: torch.sum(x), lambda: xc.copy_(x[:1]), tag="sum")
t = s["torch"]
exp.say(f"torch clean {t[0]:.1f} do_bench {t[1]:.1f}")
for k, v in sorted(((k, v) for k, v in s.items() if k not in ("torch", "copy")), key=lambda kv: kv[1][1]):
    exp.say(f"{v[0]:7.1f} {v[1]:7.1f} clean {t[0]/v[0]:.3f} dob {t[1]/v[1]:.3f} {k}")
