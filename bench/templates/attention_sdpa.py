#!/usr/bin/env python3
"""templates/attention_fwd.cu beside PyTorch's scaled_dot_product_attention, on one GPU, in one
process: every shape's output and log-sum-exp checked against an fp32 computation in PyTorch,
then the kernels and each SDPA backend (flash, cuDNN, memory-efficient; enable_gqa=True) timed
with the same two timers as bench/templates/compare_torch.py on the same tensors.

  bench/templates/attention_sdpa.py --out DIR [--lockfile LOCK] [--params KERNEL=JSON ...]
                                    [--shapes all|prefill|decode|validate] [--kernelevo BIN]
                                    [--kernels K1,K2,...] [--source FILE] [--rounds N]

The prefill shapes run every selected prefill kernel: the portable one (attention_fwd_bf16)
and, on an sm_90 GPU, the Hopper one (attention_fwd_sm90, built for sm_90a, its operands
passed as TMA tensor maps encoded as kernelevo's runner encodes them); attention_fwd_sm90_f16,
its fp16 form, runs when named in --kernels, on fp16 tensors (SDPA too).

The kernel's parameters: --params (a JSON object), else the lockfile's winner for the device,
else the source defaults. A lockfile entry with a winner per bucket (the source a per-shape
copy, `kernelevo init --template attention_fwd --dispatch batch`, passed as --source) serves
each shape with its bucket's winner, as the build's dispatcher picks it (compare_torch's
served_by); each distinct winner is compiled once, a one-size bucket's with its size define
(-DKERNELEVO_SIZE_batch=<batch>) as kernelevo compiles it. Writes DIR/attention.md and
DIR/attention.json.

SDPA gets the tensors in the kernel's layout, [batch, seq, heads, head_dim], as views
transposed to [batch, heads, seq, head_dim] (the layout its flash and memory-efficient kernels
read natively), and, separately, contiguous [batch, heads, seq, head_dim] copies made before
timing; its figure is the fastest backend and layout. --rounds (default 3): the first round
times ours and every backend, the later ones ours and that round's fastest backend, one after
the other (every second round in reverse order), and each side's time is the median of its
rounds, so a clock that sags under a long run's load is charged to both sides alike. causal:
SDPA's is_causal (the lower triangle, the same mask as the kernel's for seq_q == seq_k);
decode shapes are not causal.
A do_bench figure marked † may hold host time: issuing that call took the host longer than
do_bench's L2 clearing keeps the GPU busy (compare_torch.host_bound).
"""

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402
import spec_expr  # noqa: E402

SOURCE = os.path.join(ROOT, "templates", "attention_fwd.cu")
PREFILL, PREFILL90, DECODE = "attention_fwd_bf16", "attention_fwd_sm90", "attention_decode_bf16"
PREFILL90_F16 = "attention_fwd_sm90_f16"
KERNELS = (PREFILL, PREFILL90, DECODE, PREFILL90_F16)
DEFAULT_KERNELS = (PREFILL, PREFILL90, DECODE)
PREFILL_KERNELS = (PREFILL, PREFILL90, PREFILL90_F16)
HOPPER_KERNELS = (PREFILL90, PREFILL90_F16)  # sm_90a: run only on an sm_90 GPU


def _shape(batch, seq_q, seq_k, heads, kv_heads, causal, head_dim=128):
    return {"batch": batch, "seq_q": seq_q, "seq_k": seq_k, "heads": heads, "kv_heads": kv_heads,
            "head_dim": head_dim, "causal": causal}


# batch x heads fill the GPU at every length: 16 x 1024, 4 x 4096, 1 x 16384 query rows per head.
PREFILL_SHAPES = [_shape(b, s, s, 32, kv, c) for kv in (4, 32) for c in (0, 1)
                  for b, s in ((16, 1024), (4, 4096), (1, 16384))]
DECODE_SHAPES = [_shape(b, 1, s, 32, 4, 0) for s in (4096, 32768) for b in (1, 32)]
VALIDATE = {
    PREFILL: [_shape(1, 77, 77, 4, 1, 1, 64), _shape(2, 33, 150, 6, 2, 1), _shape(1, 130, 61, 2, 2, 0),
              _shape(2, 200, 200, 8, 8, 0, 64), _shape(3, 1, 1000, 8, 1, 0), _shape(1, 1000, 1000, 8, 2, 1)],
    DECODE: [_shape(3, 1, 1000, 8, 1, 0), _shape(2, 2, 777, 8, 2, 1), _shape(1, 1, 45, 4, 4, 0, 64),
             _shape(2, 3, 5000, 16, 2, 1, 64)],
}
VALIDATE[PREFILL90] = VALIDATE[PREFILL] + [_shape(1, 300, 100, 4, 2, 1)]
VALIDATE[PREFILL90_F16] = VALIDATE[PREFILL90]


def dtype_name(kernel):
    """The element type of a kernel's q, k, v and o: fp16 for the _f16 kernel, else bf16."""
    return "float16" if kernel.endswith("_f16") else "bfloat16"


def flops(d):
    pairs = d["seq_q"] * d["seq_k"]
    if d["causal"]:
        pairs -= d["seq_q"] * (d["seq_q"] - 1) // 2
    return 4 * d["batch"] * d["heads"] * d["head_dim"] * pairs


def reference(torch, q, k, v, d):
    """fp32 output and natural-log log-sum-exp, in chunks of heads and query rows, mask
    aligned to the last key (the kernel's)."""
    b_, sq, sk, h, hkv, hd = (d[n] for n in ("batch", "seq_q", "seq_k", "heads", "kv_heads", "head_dim"))
    g = h // hkv
    o = torch.empty(b_, sq, h, hd, dtype=torch.float32, device=q.device)
    lse = torch.empty(b_, h, sq, dtype=torch.float32, device=q.device)
    scale = 1.0 / math.sqrt(hd)
    rows = max(1, (1 << 28) // max(1, sk))  # about 1 GiB of fp32 scores per chunk
    for b in range(b_):
        for h0 in range(0, h, 4):
            hs = slice(h0, min(h, h0 + 4))
            heads = torch.arange(hs.start, hs.stop, device=q.device)
            kf = k[b].float().index_select(1, heads // g).transpose(0, 1)  # [hc, sk, hd]
            vf = v[b].float().index_select(1, heads // g).transpose(0, 1)
            for i0 in range(0, sq, rows):
                i1 = min(sq, i0 + rows)
                qf = q[b, i0:i1, hs].float().transpose(0, 1)  # [hc, rows, hd]
                s = torch.matmul(qf, kf.transpose(1, 2)) * scale
                if d["causal"]:
                    i = torch.arange(i0, i1, device=q.device).view(-1, 1)
                    j = torch.arange(sk, device=q.device).view(1, -1)
                    s.masked_fill_(j > i + (sk - sq), float("-inf"))
                m = torch.logsumexp(s, dim=-1)
                lse[b, hs, i0:i1] = m
                # A row that sees no key (causal, seq_q > seq_k) has log-sum-exp -inf and, as the
                # kernel writes it, zeros: exp(-inf - 0), not exp(-inf - -inf) = NaN.
                m_finite = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
                o[b, i0:i1, hs] = torch.matmul(torch.exp(s - m_finite.unsqueeze(-1)), vf).transpose(0, 1)
    return o, lse


def sdpa_calls(torch, q, k, v, d):
    """(name, fn, output, pinned) for each SDPA backend and layout that accepts the shape: fn is
    the plain scaled_dot_product_attention call a user makes, to be timed inside `pinned()`, the
    context that selects the backend (entered once around the timing, so its own Python is not
    charged to every call); (name, None, error text, None) for one that refuses the shape."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    causal = bool(d["causal"])
    views = [t.transpose(1, 2) for t in (q, k, v)]  # [b, h, s, hd] views of [b, s, h, hd]
    copies = [t.contiguous() for t in views]
    out = []
    for backend, name in ((SDPBackend.FLASH_ATTENTION, "flash"), (SDPBackend.CUDNN_ATTENTION, "cudnn"),
                          (SDPBackend.EFFICIENT_ATTENTION, "efficient")):
        for layout, (qq, kk, vv) in (("bshd", views), ("bhsd", copies)):
            def fn(qq=qq, kk=kk, vv=vv):
                return F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal, enable_gqa=True)

            def pinned(backend=backend):
                return sdpa_kernel([backend])
            try:
                with pinned():
                    r = fn()
                torch.cuda.synchronize()
            except Exception as e:  # a backend that refuses the shape is reported, not timed
                out.append((f"{name}/{layout}", None, ct.error_text(e, 160), None))
                continue
            out.append((f"{name}/{layout}", fn, r, pinned))
    return out


def kernel_winners(args, spec, kernel, lock, device):
    """What serves the kernel: {"params": the one parameter set, or None for a lockfile entry
    with a winner per bucket ("entry": that entry), "from": where it comes from}."""
    if kernel in args.params:
        return {"params": args.params[kernel], "from": "--params"}
    entry, dev = ct.lock_entry(lock, kernel, spec.get("arch") or "sm_90", device)
    if entry is None:
        return {"params": {}, "from": "source defaults"}
    if "buckets" in entry:
        return {"params": None, "entry": entry, "from": f"lockfile ({dev}), a winner per bucket of {entry.get('by')}"}
    return {"params": entry.get("params", {}), "from": f"lockfile ({dev})"}


def shape_params(winners, d):
    """The parameters serving shape `d`, for a winner per bucket the bucket's label ("batch [1,
    2)", "(nearest)" added for a shape outside every bucket; None otherwise), and the size define
    that winner is compiled with (compare_torch.served_by's; None for a single winner)."""
    if winners["params"] is not None:
        return winners["params"], None, None
    served = ct.served_by(winners["entry"], d)
    return served["params"], served["label"] + ("" if served["inside"] else " (nearest)"), served["size_define"]


def kernel_args(spec, tensors, d, driver, names):
    """The kernel's arguments: the tensors by name, scalars from the shape `d`, tensor maps
    encoded by `driver` at `names` (compare_torch's kernel_args)."""
    values = dict(tensors)
    for a in spec["args"]:
        if not a.get("tensor_map") and not a["pointer"]:
            values[a["name"]] = d[a["value"]] if isinstance(a["value"], str) else a["value"]
    return ct.kernel_args(spec, values, driver, names)


def run(args):
    import torch

    ct.DEVICE = "cuda"
    ct.use_device_sm_count(torch)
    torch.backends.cuda.matmul.allow_tf32 = False
    device = torch.cuda.get_device_name()
    lock = ct.load_json(args.lockfile) if args.lockfile else None
    drv = cuda_launch.Driver()
    clean_desc, clean = ct.make_clean_timer(torch, args.rep_ms)
    bench_desc, bench = ct.make_timer(torch, 25, args.rep_ms)
    clearing_us = ct.clearing_gpu_us(torch)
    nvcc = ct.find_nvcc()
    work = tempfile.mkdtemp(prefix="attention-sdpa-")
    kernels = {}
    scanned = ct.load_json(args.spec_json)["kernels"] if args.spec_json else None
    hopper = torch.cuda.get_device_capability() == (9, 0)
    selected = [k for k in args.kernels if k not in HOPPER_KERNELS or hopper]
    source = os.path.abspath(args.source)
    for kernel in selected:
        if scanned:
            spec = next(k for k in scanned if k["id"] == kernel)
        else:
            spec = ct.load_spec(args.kernelevo, source, kernel, os.path.dirname(source))
        winners = kernel_winners(args, spec, kernel, lock, device)
        kernels[kernel] = {"spec": spec, "winners": winners, "fns": {}}
        print(f"{kernel}: {winners.get('params', 'per bucket')} ({winners['from']})", file=sys.stderr)

    def function(kname, params, size_define=None):
        """The kernel compiled with `params` and `size_define`, once per distinct pair."""
        kd = kernels[kname]
        key = json.dumps([params, size_define], sort_keys=True)
        if key not in kd["fns"]:
            cubin = os.path.join(work, f"{kname}-{len(kd['fns'])}.cubin")
            arch = kd["spec"].get("arch") or "sm_90"
            image = ct.compile_cubin(ct.nvcc_command(nvcc, source, arch, params, kd["spec"], cubin,
                                                     [size_define] if size_define else []))
            kd["fns"][key] = drv.function(image, kname)
        return kd["fns"][key]

    plan = []
    if args.shapes in ("all", "prefill"):
        plan += [(kname, s) for s in PREFILL_SHAPES for kname in selected if kname in PREFILL_KERNELS]
    if args.shapes in ("all", "decode") and DECODE in selected:
        plan += [(DECODE, s) for s in DECODE_SHAPES]
    if args.shapes == "validate":
        plan += [(kname, s) for kname in selected for s in VALIDATE[kname]]

    rows = []
    for kname, d in plan:
        kd = kernels[kname]
        spec = kd["spec"]
        row = {"kernel": kname, "shape": d}
        try:
            params, bucket, size_define = shape_params(kd["winners"], d)
            row["params"] = params
            if bucket:
                row["served_by"] = bucket
            if size_define:
                row["size_define"] = size_define
            fn = function(kname, params, size_define)
            torch.manual_seed(0)
            dtype = getattr(torch, dtype_name(kname))
            q = torch.randn(d["batch"], d["seq_q"], d["heads"], d["head_dim"], device="cuda", dtype=dtype)
            k = torch.randn(d["batch"], d["seq_k"], d["kv_heads"], d["head_dim"], device="cuda", dtype=dtype)
            v = torch.randn_like(k)
            o = torch.empty_like(q)
            lse = torch.empty(d["batch"], d["heads"], d["seq_q"], device="cuda", dtype=torch.float32)
            tensors = {"q": q, "k": k, "v": v, "o": o, "lse": lse}
            for a in spec["args"]:
                if a.get("scratch"):
                    names = ct.names_for(d, {**spec.get("defaults", {}), **params})
                    n = spec_expr.evaluate(a["count"], names)
                    tensors[a["name"]] = torch.zeros(n * 4, dtype=torch.uint8, device="cuda")
            names = ct.names_for(d, {**spec.get("defaults", {}), **params})
            launch, geometry = ct.spec_launcher(drv, fn, spec, names, ct.current_stream(torch),
                                          kernel_args(spec, tensors, d, drv, names))
            grid, block, shared = geometry["grid"], geometry["block"], geometry["shared_bytes"]
            o.fill_(float("nan"))
            lse.fill_(float("nan"))
            launch()
            torch.cuda.synchronize()
            ro, rl = reference(torch, q, k, v, d)
            err_o = (o.float() - ro).abs().max().item()
            err_l = (lse - rl).abs().max().item()
            ok = (not torch.isnan(o).any().item()) and torch.allclose(o.float(), ro, rtol=2e-2, atol=2e-2) \
                and torch.allclose(lse, rl, rtol=1e-3, atol=1e-3)
            row.update({"max_error_o": err_o, "max_error_lse": err_l, "verified": bool(ok),
                        "grid": grid, "block": block, "shared_bytes": shared,
                        "cluster": geometry["cluster"]})
            if not ok:
                row["mismatch_o"] = mismatch(torch, o, ro, 2e-2, 2e-2)
                row["mismatch_lse"] = mismatch(torch, lse, rl, 1e-3, 1e-3)
            del ro, rl
            if args.shapes != "validate":
                # Round one times ours and every SDPA backend; the later rounds ours and the
                # fastest backend of round one again, each side's time the median of its rounds.
                row["sdpa"] = {}
                candidates = [("ours", launch, None)]
                for name, fn, r, pinned in sdpa_calls(torch, q, k, v, d):
                    if fn is None:
                        row["sdpa"][name] = {"error": r}
                        continue
                    got = r.transpose(1, 2).float()
                    row["sdpa"][name] = {"max_diff_to_ours": (got - o.float()).abs().max().item()}
                    candidates.append((name, fn, pinned))
                    del r, got
                timers = {"us": clean, "do_bench_us": bench}
                times = ct.time_in_rounds(candidates, timers, 1)
                sdpa = [c for c in candidates if c[0] != "ours"]
                best = min(sdpa, key=lambda c: times[c[0]]["us"][0]) if sdpa else None
                later = ct.time_in_rounds([candidates[0]] + ([best] if best else []), timers, args.rounds - 1,
                                           first_round=1)
                for name, fn, pinned in candidates:
                    for t in timers:
                        times[name][t] += later.get(name, {}).get(t, [])
                    with (pinned() if pinned else contextlib.nullcontext()):
                        host = ct.host_issue_us(torch, fn)
                    cell = {t: statistics.median(times[name][t]) for t in timers}
                    cell.update({"host_us": host, "rounds_us": times[name]["us"],
                                 "rounds_do_bench_us": times[name]["do_bench_us"]})
                    if name == "ours":
                        row.update({f"ours_{t}": v for t, v in cell.items()})
                    else:
                        row["sdpa"][name].update(cell)
                if best:
                    row["sdpa_best"] = {"backend": best[0], **{k: row["sdpa"][best[0]][k] for k in
                                                               ("us", "do_bench_us", "host_us")}}
                row["tflops"] = flops(d) / (row["ours_us"] * 1e-6) / 1e12
        except Exception as e:  # noqa: BLE001 - one shape's failure goes into the table
            row["error"] = ct.error_text(e, 400)
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
        torch.cuda.empty_cache()

    meta = {"device": device, "torch": torch.__version__, "date": datetime.datetime.utcnow().isoformat() + "Z",
            "timer": clean_desc, "second_timer": bench_desc, "command": " ".join(sys.argv),
            "rounds": (f"{args.rounds}: ours and every SDPA backend timed one after the other, then ours and the "
                       f"fastest backend of that round {args.rounds - 1} more times alike, every second round in "
                       "reverse order; each time the median of its rounds"),
            "clearing_us": clearing_us,
            "host": platform.node(),
            "kernels": {k: kernel_meta(v["winners"]) for k, v in kernels.items()}}
    return meta, rows


def kernel_meta(winners):
    """A kernel's winners for the table's head: its parameters, or each bucket's."""
    if winners["params"] is not None:
        return {"params": winners["params"], "from": winners["from"]}
    entry = winners["entry"]
    return {"buckets": [{"range": b["range"], "params": b.get("params", {})} for b in entry["buckets"]],
            "by": entry.get("by"), "from": winners["from"]}


def mismatch(torch, got, ref, rtol, atol):
    """Where `got` ([batch, seq, heads, head_dim], or [batch, heads, seq]) is off `ref`: how
    many elements, the first one's index, and the bad query rows by their offset in a 64-row
    block and the bad columns (which pattern a wrong tile, mask or swizzle leaves)."""
    got = got.float()
    bad = ~torch.isclose(got, ref, rtol=rtol, atol=atol)
    n = int(bad.sum().item())
    if n == 0:
        return None
    seq_dim = 1 if got.dim() == 4 else 2
    first = [int(i) for i in bad.nonzero()[0].tolist()]
    other = [i for i in range(got.dim()) if i != seq_dim]
    rows = bad.any(dim=other[-1]).any(dim=other[0]) if got.dim() == 3 else bad.flatten(2).any(dim=2).any(dim=0)
    rows = rows.nonzero().flatten().tolist()
    summary = {"bad": n, "of": got.numel(), "nan": int(torch.isnan(got).sum().item()), "first": first,
               "bad_rows": len(rows), "rows_mod_64": sorted({r % 64 for r in rows})[:16],
               "first_rows": rows[:8]}
    if got.dim() == 4:
        summary["bad_columns"] = bad.flatten(0, 2).any(dim=0).nonzero().flatten().tolist()[:16]
    return summary


def do_bench_cell(meta, us, host_us):
    return ct.results_table.dobench_cell(us, host_us, meta.get("clearing_us"))


def table(meta, rows):
    out = ["# templates/attention_fwd.cu beside PyTorch SDPA", ""]
    for key in ("device", "torch", "date", "timer", "second_timer", "rounds", "command"):
        if key in meta:
            out.append(f"- {key}: {meta[key]}")
    for k, v in meta["kernels"].items():
        if "buckets" in v:
            out.append(f"- {k}: {v['from']}")
            for b in v["buckets"]:
                out.append(f"  - {v['by']} {ct.range_text(b['range'])}: {json.dumps(b['params'], sort_keys=True)}")
        else:
            out.append(f"- {k}: {json.dumps(v['params'], sort_keys=True)} ({v['from']})")
    out += ["", "| kernel | batch | seq_q | seq_k | heads/kv | causal | ours us | TFLOP/s | SDPA best | SDPA us | "
            "ours / SDPA | do_bench ours | do_bench SDPA | verified (max err o, lse) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        d = r["shape"]
        kernel = r["kernel"] + (f" ({r['served_by']})" if r.get("served_by") else "")
        head = (f"| {kernel} | {d['batch']} | {d['seq_q']} | {d['seq_k']} | {d['heads']}/{d['kv_heads']} | "
                f"{d['causal']} |")
        if "error" in r:
            out.append(head + f" failed: {r['error'][:200]} |||||||||")
            continue
        ver = f"{'yes' if r['verified'] else 'NO'} ({r['max_error_o']:.1e}, {r['max_error_lse']:.1e})"
        if "ours_us" not in r:
            out.append(head + f" | | | | | | | {ver} |")
            continue
        best = r.get("sdpa_best")
        if best:
            ratio = best["us"] / r["ours_us"]
            out.append(head + f" {r['ours_us']:.1f} | {r['tflops']:.0f} | {best['backend']} | {best['us']:.1f} | "
                       f"{ratio:.2f}x | {do_bench_cell(meta, r['ours_do_bench_us'], r.get('ours_host_us'))} | "
                       f"{do_bench_cell(meta, best['do_bench_us'], best.get('host_us'))} | {ver} |")
        else:
            out.append(head + f" {r['ours_us']:.1f} | {r['tflops']:.0f} | none | | | "
                       f"{do_bench_cell(meta, r['ours_do_bench_us'], r.get('ours_host_us'))} | | {ver} |")
    out += ["", "ours / SDPA: SDPA's time over ours (above 1: ours is faster)."]
    if any("†" in line for line in out):
        out.append(ct.results_table.host_bound_note(
            meta["clearing_us"], " (the CUDA-events timer's flush, a write and a read of the buffer, keeps the GPU "
                                 "busy about twice as long)"))
    return "\n".join(out) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--lockfile")
    p.add_argument("--source", default=SOURCE,
                   help="the attention source the lockfile's entries were tuned on (default the repository's "
                        "templates/attention_fwd.cu; a per-shape copy from `kernelevo init --template "
                        "attention_fwd --dispatch batch` for winners per bucket)")
    p.add_argument("--params", action="append", default=[], help="KERNEL=JSON object of parameters")
    p.add_argument("--shapes", default="all", choices=["all", "prefill", "decode", "validate"])
    p.add_argument("--kernelevo", default=os.environ.get("KERNELEVO", os.path.join(ROOT, "build", "tool", "kernelevo")))
    p.add_argument("--spec-json", help="`kernelevo scan templates/attention_fwd.cu --format json` output, "
                   "in place of running --kernelevo")
    p.add_argument("--rep-ms", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds of timing, ours and SDPA's fastest backend one after the other in each, "
                        "each side's time the median of its rounds (default 3)")
    p.add_argument("--kernels", default=",".join(DEFAULT_KERNELS),
                   help=f"comma-separated kernel ids to run, of {', '.join(KERNELS)} (the sm_90a ones only on "
                        "an sm_90 GPU)")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds: at least 1")
    args.kernels = [k for k in args.kernels.split(",") if k]
    unknown = [k for k in args.kernels if k not in KERNELS]
    if unknown:
        p.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    parsed = {}
    for item in args.params:
        name, _, text = item.partition("=")
        parsed[name] = json.loads(text)
    args.params = parsed
    return args


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    meta, rows = run(args)
    meta["run_seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(args.out, "attention.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "attention.md"), "w") as f:
        f.write(table(meta, rows))
    print(table(meta, rows))
    return 0 if all(r.get("verified") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
