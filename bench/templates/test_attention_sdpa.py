#!/usr/bin/env python3
"""Tests of attention_sdpa.py's parts that need no GPU: the FLOP count, the launch geometry
the shipped spec gives (read through `kernelevo scan`), the --params parser and the table;
and that every schedule attention-configs.sh runs is one the spec allows.

  python3 bench/templates/test_attention_sdpa.py [KERNELEVO]
"""

import contextlib
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import attention_sdpa as att  # noqa: E402
import compare_torch as ct  # noqa: E402
import spec_expr  # noqa: E402

CONFIGS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention-configs.sh")


def test_flops():
    d = att._shape(2, 8, 8, 4, 1, 0, 64)
    assert att.flops(d) == 4 * 2 * 4 * 64 * 64
    causal = att._shape(2, 8, 8, 4, 1, 1, 64)
    assert att.flops(causal) == 4 * 2 * 4 * 64 * (8 * 9 // 2)
    # A causal decode step against a longer cache sees every key up to its own position.
    step = att._shape(1, 2, 10, 1, 1, 1, 64)
    assert att.flops(step) == 4 * 64 * (9 + 10)


def scanned(kernelevo):
    r = subprocess.run([kernelevo, "scan", att.SOURCE, "--format", "json"], capture_output=True, text=True,
                       check=True)
    return {k["id"]: k for k in json.loads(r.stdout)["kernels"]}


def test_geometry(kernelevo):
    specs = scanned(kernelevo)
    fwd, dec = specs[att.PREFILL], specs[att.DECODE]
    # Prefill at the defaults: 128 query rows a block, a query head a block row.
    d = att._shape(4, 4096, 4096, 32, 4, 1)
    grid, block, shared = ct.geometry(fwd, ct.names_for(d, fwd["defaults"]))
    assert grid[:2] == [32, 128] and block == [128], (grid, block)
    assert shared == (128 + 2 * 2 * 64) * 128 * 2
    # Grouped rows: the 8 query heads of a key head share a block's rows.
    grouped = dict(fwd["defaults"], ATT_GROUP_ROWS=1)
    grid, _, _ = ct.geometry(fwd, ct.names_for(d, grouped))
    assert grid[:2] == [4096 * 8 // 128, 16], grid
    # Warps along the keys need room to merge their states.
    merging = dict(fwd["defaults"], ATT_WARPS_N=2, ATT_M_TILES=1, ATT_BN=32)
    _, block, shared = ct.geometry(fwd, ct.names_for(d, merging))
    assert block == [256] and shared == max((64 + 2 * 2 * 32 * 2) * 256, (2 * 64 * 130 + 64) * 4), shared
    # Decode: the split count follows the shape, at most ATT_DEC_BLOCKS blocks and 64 splits,
    # each split at least ATT_DEC_MIN_TILES tiles of keys.
    params = dict(dec["defaults"], ATT_DEC_BLOCKS=264, ATT_DEC_MIN_TILES=1, ATT_DEC_BN=32, ATT_DEC_WARPS_N=4)
    for (batch, seq_k), splits in (((1, 4096), 32), ((1, 32768), 64), ((32, 4096), 2), ((64, 4096), 1)):
        s = att._shape(batch, 1, seq_k, 32, 4, 0)
        grid, block, _ = ct.geometry(dec, ct.names_for(s, params))
        assert grid == [splits, batch * 4, 1] and block == [128], (batch, seq_k, grid)
        assert ct.cluster_of(dec, ct.names_for(s, params)) == 1
    # In clusters: whole clusters of splits, at least one (the splits along x, as clusters are).
    clustered = dict(params, ATT_DEC_CLUSTER=8)
    for (batch, seq_k), splits in (((1, 4096), 32), ((1, 32768), 64), ((32, 4096), 8), ((1, 500), 8)):
        s = att._shape(batch, 1, seq_k, 32, 4, 0)
        grid, _, shared = ct.geometry(dec, ct.names_for(s, clustered))
        assert grid == [splits, batch * 4, 1], (batch, seq_k, grid)
        assert ct.cluster_of(dec, ct.names_for(s, clustered)) == 8
    # ... and room beside the warps' merge state for the rows the cluster reads.
    _, _, shared1 = ct.geometry(dec, ct.names_for(s, dict(params, ATT_DEC_STAGES=1, ATT_DEC_BN=32)))
    _, _, shared8 = ct.geometry(dec, ct.names_for(s, dict(clustered, ATT_DEC_STAGES=1, ATT_DEC_BN=32)))
    assert shared8 >= (4 * 16 * 138 + 16 + 16 * 128 + 16) * 4 and shared8 >= shared1, (shared1, shared8)
    # Scratch holds the most splits a launch can make.
    counts = {a["name"]: a.get("count", "") for a in dec["args"]}
    assert counts["o_part"].startswith("64*")
    # The Hopper kernel: 64 query rows a consumer warpgroup, a head a block row, a batch a
    # plane; a producer warpgroup beside the consumers; Q, two stages of K and V, the barriers
    # and the 1024-byte alignment of the swizzled tiles.
    h = specs[att.PREFILL90]
    assert h["arch"] == "sm_90a"
    # The defaults are persistent (ATT90_CTAS=132, below); a block per query tile first.
    assert h["defaults"]["ATT90_CTAS"] == 132 and h["defaults"]["ATT90_PINGPONG"] == 1
    grid, block, shared = ct.geometry(h, ct.names_for(d, dict(h["defaults"], ATT90_CTAS=0)))
    c, bn, st = h["defaults"]["ATT90_CONSUMERS"], h["defaults"]["ATT90_BN"], h["defaults"]["ATT90_STAGES"]
    assert grid == [4096 // (64 * c), 32, 4] and block == [128 * (c + 1)], (grid, block)
    # Barriers: Q's full and empty, and each stage's four.
    assert shared == (64 * c + 2 * st * bn) * 128 * 2 + 8 * (2 + 4 * st) + 1024, shared
    # Persistent blocks (ATT90_CTAS): at most that many, in one dimension, however many tiles.
    # They keep two Q tiles, each with its full and empty barriers.
    persistent = dict(h["defaults"], ATT90_CTAS=132)
    grid, _, shared = ct.geometry(h, ct.names_for(d, persistent))
    assert grid == [132, 1, 1], grid
    assert shared == (2 * 64 * c + 2 * st * bn) * 128 * 2 + 8 * (4 + 4 * st) + 1024, shared
    few = att._shape(1, 1, 300, 1, 1, 1)
    grid, _, _ = ct.geometry(h, ct.names_for(few, persistent))
    assert grid == [1, 1, 1], grid
    # ... and no more than the GPU's SMs (sm_count), as the launcher caps them.
    ct.SM_COUNT = 114
    try:
        grid, _, _ = ct.geometry(h, ct.names_for(d, persistent))
        assert grid == [114, 1, 1], grid
    finally:
        ct.SM_COUNT = 132
    return specs


class FakeTensor:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


class FakeDriver:
    def __init__(self):
        self.maps = []

    def tensor_map(self, ctype, address, dims, box, swizzle):
        self.maps.append((ctype, address, dims, box, swizzle))
        return ("map", len(self.maps))


def test_spec_launcher_passes_the_decode_kernels_clusters(specs):
    """A decode winner in clusters (ATT_DEC_CLUSTER) is launched in clusters: the driver's
    launcher gets the cluster size and the grid in clusters (a launch without them ran the
    cluster's shared-memory loads on CTAs of no cluster: an illegal instruction on the GPU)."""
    calls = []

    class Driver:
        def allow_dynamic_shared(self, fn, nbytes):
            calls.append(("shared", nbytes))

        def launcher(self, fn, grid, block, shared, stream, args, cluster=1):
            calls.append(("launch", grid, block, cluster))
            return "launch"

    dec = specs[att.DECODE]
    d = att._shape(32, 1, 4096, 32, 4, 0)
    params = dict(dec["defaults"], ATT_DEC_CLUSTER=2, ATT_DEC_BLOCKS=264, ATT_DEC_MIN_TILES=1,
                  ATT_DEC_BN=32, ATT_DEC_WARPS_N=4)
    launch, geometry = ct.spec_launcher(Driver(), "fn", dec, ct.names_for(d, params), 0, [])
    assert launch == "launch"
    assert geometry["grid"] == [2, 128, 1] and geometry["cluster"] == 2, geometry
    assert calls[-1] == ("launch", [1, 128, 1], [128], 2), calls


def test_hopper_arguments(specs):
    # The Hopper kernel's arguments: pointers and scalars in order, then a 4-D tensor map of
    # each operand over [batch, seq, heads, head_dim] (innermost first), one head and a tile of
    # rows a box, in the 128-byte swizzle.
    h = specs[att.PREFILL90]
    d = att._shape(2, 300, 100, 4, 2, 1, 64)
    params = dict(h["defaults"], ATT90_BN=64, ATT90_CONSUMERS=3)
    tensors = {n: FakeTensor(0x10000 * (i + 1))
               for i, n in enumerate(("q", "k", "v", "o", "lse", "o_part", "counter"))}
    drv = FakeDriver()
    args = att.kernel_args(h, tensors, d, drv, ct.names_for(d, params))
    assert len(args) == 18
    assert [m[:2] for m in drv.maps] == [("__nv_bfloat16", 0x10000), ("__nv_bfloat16", 0x20000),
                                        ("__nv_bfloat16", 0x30000), ("__nv_bfloat16", 0x40000)]
    assert drv.maps[0][2:] == ([64, 4, 300, 2], [64, 1, 192, 1], 128)
    assert drv.maps[1][2:] == ([64, 2, 100, 2], [64, 1, 64, 1], 128)
    assert drv.maps[2][2:] == drv.maps[1][2:]
    assert drv.maps[3][2:] == ([64, 4, 300, 2], [64, 1, 64, 1], 128)
    assert args[14:] == [("map", 1), ("map", 2), ("map", 3), ("map", 4)]
    # Stream-K's scratch follows lse; with it the persistent grid fills the SMs even where the
    # query tiles are fewer (16 here), and without it the scratch is one element.
    whole = ct.geometry(h, ct.names_for(d, params))[0]
    streamed = ct.geometry(h, ct.names_for(d, dict(params, ATT90_STREAM=1)))[0]
    assert whole == [16, 1, 1] and streamed == [132, 1, 1], (whole, streamed)
    scratch = {a["name"]: a["count"] for a in h["args"] if a.get("scratch")}
    assert spec_expr.evaluate(scratch["o_part"], ct.names_for(d, params)) == 1
    assert spec_expr.evaluate(scratch["o_part"], ct.names_for(d, dict(params, ATT90_STREAM=1))) == \
        2 * 132 * 3 * (64 // 8 + 1) * 512
    assert spec_expr.evaluate(scratch["counter"], ct.names_for(d, dict(params, ATT90_STREAM=1))) == 132 * 3
    # The fp16 kernel: the same geometry and maps over fp16 buffers.
    h16 = specs[att.PREFILL90_F16]
    params16 = {k.replace("ATT90_", "ATT90H_"): v for k, v in params.items()}
    drv16 = FakeDriver()
    att.kernel_args(h16, tensors, d, drv16, ct.names_for(d, params16))
    assert [m[0] for m in drv16.maps] == ["__half"] * 4
    assert [m[2:] for m in drv16.maps] == [m[2:] for m in drv.maps]
    assert ct.geometry(h16, ct.names_for(d, params16)) == ct.geometry(h, ct.names_for(d, params))


def attention_configs(text):
    """(name, {NAME: int}) of each schedule in attention-configs.sh's `configs=( ... )` list:
    lines "name=NAME=VALUE NAME=VALUE" (ATT90_ / ATT90H_ prefixes added by the script)."""
    body = text[text.index("configs=(") + len("configs=("):]
    body = body[:body.index("\n)")]
    out = []
    for line in body.splitlines():
        line = line.strip()
        if not line.startswith('"'):
            continue
        name, _, settings = line.strip('"').partition("=")
        out.append((name, {k: int(v) for k, v in (kv.split("=") for kv in settings.split())}))
    return out


def test_configs_within_constraints(specs):
    # A schedule the spec's constraints exclude is one the tuner never launches (last time one
    # asked for 280 KiB of shared memory and failed every launch as "invalid argument").
    with open(CONFIGS_SCRIPT) as f:
        configs = attention_configs(f.read())
    assert len(configs) >= 8 and configs[0] == ("defaults", {}), configs[:2]
    # DEC_ settings are the decode kernel's (ATT_DEC_ in the source), the others the Hopper
    # prefill kernels' (ATT90_, ATT90H_).
    checks = ((att.PREFILL90, "ATT90_", False), (att.PREFILL90_F16, "ATT90H_", False), (att.DECODE, "ATT_", True))
    for kernel, prefix, decode in checks:
        spec = specs[kernel]
        assert spec["constraints"], kernel
        for name, settings in configs:
            mine = {k: v for k, v in settings.items() if k.startswith("DEC_") == decode}
            params = dict(spec["defaults"], **{prefix + k: v for k, v in mine.items()})
            for k, v in params.items():
                assert v in spec["params"][k], (kernel, name, k, v)
            for d in spec["problems"] + spec["validate"]:
                for c in spec["constraints"]:
                    assert spec_expr.evaluate(c, ct.names_for(d, params)), (kernel, name, c)
    assert any(k.startswith("DEC_") for _, settings in configs for k in settings)
    # The check would have caught that schedule.
    bad = dict(specs[att.PREFILL90]["defaults"], ATT90_CONSUMERS=1, ATT90_BN=176, ATT90_STAGES=3)
    d = specs[att.PREFILL90]["problems"][0]
    assert not all(spec_expr.evaluate(c, ct.names_for(d, bad)) for c in specs[att.PREFILL90]["constraints"])


def test_kernels_option():
    assert att.parse_args(["--out", "x"]).kernels == [att.PREFILL, att.PREFILL90, att.DECODE]
    assert att.parse_args(["--out", "x", "--kernels", "attention_fwd_sm90_f16"]).kernels == [att.PREFILL90_F16]
    assert att.dtype_name(att.PREFILL90_F16) == "float16" and att.dtype_name(att.PREFILL90) == "bfloat16"
    assert att.parse_args(["--out", "x", "--kernels", "attention_fwd_sm90"]).kernels == [att.PREFILL90]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            att.parse_args(["--out", "x", "--kernels", "attention_fwd_sm80"])
    except SystemExit:
        pass
    else:
        raise AssertionError("an unknown kernel is refused")


def test_params_parser():
    args = att.parse_args(["--out", "x", "--params", 'attention_fwd_bf16={"ATT_BN": 32}'])
    assert args.params == {"attention_fwd_bf16": {"ATT_BN": 32}}


def test_table():
    meta = {"device": "GPU", "torch": "2", "date": "d", "timer": "t", "second_timer": "b", "command": "c",
            "kernels": {att.PREFILL: {"params": {"ATT_BN": 64}, "from": "lockfile"}}}
    shape = att._shape(1, 1024, 1024, 32, 4, 1)
    timed = {"kernel": att.PREFILL, "shape": shape, "verified": True, "max_error_o": 1e-3, "max_error_lse": 2e-6,
             "ours_us": 100.0, "ours_do_bench_us": 110.0, "tflops": 300.0,
             "sdpa_best": {"backend": "cudnn/bshd", "us": 50.0, "do_bench_us": 55.0}}
    checked = {"kernel": att.DECODE, "shape": shape, "verified": False, "max_error_o": 0.5, "max_error_lse": 0.1}
    failed = {"kernel": att.DECODE, "shape": shape, "error": "DriverError: launch failed"}
    lines = att.table(meta, [timed, checked, failed]).splitlines()
    assert "| attention_fwd_bf16 | 1 | 1024 | 1024 | 32/4 | 1 | 100.0 | 300 | cudnn/bshd | 50.0 | 0.50x | 110.0 | 55.0 | " \
           "yes (1.0e-03, 2.0e-06) |" in lines
    assert any("attention_decode_bf16" in l and "NO (5.0e-01, 1.0e-01)" in l for l in lines)
    assert any("failed: DriverError: launch failed" in l for l in lines)


def test_per_shape_winners():
    # A lockfile entry with a winner per bucket of batch serves each shape with its bucket's
    # winner, a shape outside every bucket with the nearest one's; --params overrides it.
    spec = {"id": att.DECODE, "arch": None}
    b1 = {"ATT_DEC_WARPS_N": 8, "ATT_DEC_STAGES": 1}
    b32 = {"ATT_DEC_WARPS_N": 4, "ATT_DEC_STAGES": 3}
    entry = {"by": "batch", "buckets": [{"range": [1, 2], "params": b1}, {"range": [32, 33], "params": b32}]}
    lock = {"kernels": {att.DECODE: {"targets": {"sm_90": {"GPU": entry}}}}}
    args = att.parse_args(["--out", "x"])
    winners = att.kernel_winners(args, spec, att.DECODE, lock, "GPU")
    assert winners["params"] is None and "a winner per bucket of batch" in winners["from"], winners
    # Each compiled with its one-size bucket's size define, the nearest bucket's outside them all.
    assert att.shape_params(winners, att._shape(1, 1, 4096, 32, 4, 0)) == (b1, "batch [1, 2)",
                                                                           "KERNELEVO_SIZE_batch=1")
    assert att.shape_params(winners, att._shape(32, 1, 32768, 32, 4, 0)) == (b32, "batch [32, 33)",
                                                                             "KERNELEVO_SIZE_batch=32")
    assert att.shape_params(winners, att._shape(64, 1, 4096, 32, 4, 0)) == (b32, "batch [32, 33) (nearest)",
                                                                            "KERNELEVO_SIZE_batch=32")
    meta = att.kernel_meta(winners)
    assert meta["by"] == "batch" and [b["params"] for b in meta["buckets"]] == [b1, b32], meta
    # One winner, the source defaults, and --params.
    plain = {"kernels": {att.DECODE: {"targets": {"sm_90": {"GPU": {"params": b1}}}}}}
    assert att.shape_params(att.kernel_winners(args, spec, att.DECODE, plain, "GPU"), {}) == (b1, None, None)
    assert att.kernel_winners(args, spec, att.DECODE, None, "GPU") == {"params": {}, "from": "source defaults"}
    forced = att.parse_args(["--out", "x", "--params", att.DECODE + '={"ATT_DEC_BN": 64}'])
    assert att.shape_params(att.kernel_winners(forced, spec, att.DECODE, lock, "GPU"), {}) == ({"ATT_DEC_BN": 64}, None,
                                                                                               None)
    # The table names each bucket's winner in its head and the bucket serving each row.
    head = {"device": "GPU", "torch": "2", "date": "d", "timer": "t", "second_timer": "b", "command": "c",
            "kernels": {att.DECODE: meta}}
    shape = att._shape(1, 1, 4096, 32, 4, 0)
    row = {"kernel": att.DECODE, "shape": shape, "served_by": "batch [1, 2)", "verified": True, "max_error_o": 1e-4,
           "max_error_lse": 1e-6, "ours_us": 10.0, "ours_do_bench_us": 11.0, "tflops": 1.0,
           "sdpa_best": {"backend": "cudnn/bshd", "us": 12.0, "do_bench_us": 13.0}}
    lines = att.table(head, [row]).splitlines()
    assert '  - batch [1, 2): {"ATT_DEC_STAGES": 1, "ATT_DEC_WARPS_N": 8}' in lines, lines
    assert any(l.startswith("| attention_decode_bf16 (batch [1, 2)) | 1 | 1 | 4096 |") for l in lines), lines


def test_host_bound_do_bench():
    # A call the host takes longer to issue than do_bench's clearing keeps the GPU busy may be
    # charged host time by do_bench: its cell is marked and the table says why.
    assert ct.host_bound(90.0, 80.0) and not ct.host_bound(20.0, 80.0)
    assert not ct.host_bound(None, 80.0) and not ct.host_bound(90.0, None)
    meta = {"device": "GPU", "torch": "2", "date": "d", "timer": "t", "second_timer": "b", "command": "c",
            "clearing_us": 80.0, "kernels": {att.DECODE: {"params": {}, "from": "source defaults"}}}
    shape = att._shape(1, 1, 4096, 32, 4, 0)
    row = {"kernel": att.DECODE, "shape": shape, "verified": True, "max_error_o": 1e-4, "max_error_lse": 1e-6,
           "ours_us": 17.4, "ours_do_bench_us": 14.7, "ours_host_us": 9.0, "tflops": 1.0,
           "sdpa_best": {"backend": "cudnn/bshd", "us": 13.2, "do_bench_us": 41.7, "host_us": 120.0}}
    lines = att.table(meta, [row]).splitlines()
    assert any("| 14.7 | 41.7† |" in l for l in lines), lines
    assert any(l.startswith("†: issuing the call took the host longer") and "(80 us)" in l for l in lines), lines
    # Nothing marked, no footnote.
    row["sdpa_best"]["host_us"] = 30.0
    assert not any("†" in l for l in att.table(meta, [row]).splitlines())


def test_sdpa_calls_pin_the_backend_around_plain_calls():
    # Each backend's call is the plain scaled_dot_product_attention a user makes; the backend is
    # selected by a context the caller enters once around the timing, so the context's Python is
    # not charged to every timed call. A backend that refuses the shape is reported, not timed.
    import types

    entered = []

    class Pin:
        def __init__(self, backends):
            self.backends = backends

        def __enter__(self):
            entered.append(self.backends[0])
            calls.append(("enter", self.backends[0]))

        def __exit__(self, *exc):
            entered.pop()
            return False

    calls = []

    def sdpa(q, k, v, is_causal, enable_gqa):
        assert enable_gqa and is_causal is False
        backend = entered[-1] if entered else None
        calls.append(("sdpa", backend))
        if backend == "EFFICIENT":
            raise RuntimeError("No available kernel. Aborting execution.")
        return FakeTransposable()

    class FakeTransposable:
        def transpose(self, a, b):
            return self

        def contiguous(self):
            return self

    backend_enum = types.SimpleNamespace(FLASH_ATTENTION="FLASH", CUDNN_ATTENTION="CUDNN",
                                         EFFICIENT_ATTENTION="EFFICIENT")
    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: None))
    modules = {"torch": types.ModuleType("torch"), "torch.nn": types.ModuleType("torch.nn"),
               "torch.nn.functional": types.ModuleType("torch.nn.functional"),
               "torch.nn.attention": types.ModuleType("torch.nn.attention")}
    modules["torch.nn.functional"].scaled_dot_product_attention = sdpa
    modules["torch.nn.attention"].SDPBackend = backend_enum
    modules["torch.nn.attention"].sdpa_kernel = Pin
    modules["torch"].nn = modules["torch.nn"]
    modules["torch.nn"].functional = modules["torch.nn.functional"]
    modules["torch.nn"].attention = modules["torch.nn.attention"]
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        t = FakeTransposable()
        got = att.sdpa_calls(fake_torch, t, t, t, att._shape(1, 1, 4096, 32, 4, 0))
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    names = [g[0] for g in got]
    assert names == ["flash/bshd", "flash/bhsd", "cudnn/bshd", "cudnn/bhsd", "efficient/bshd",
                     "efficient/bhsd"], names
    refused = [g for g in got if g[1] is None]
    assert [g[0] for g in refused] == ["efficient/bshd", "efficient/bhsd"] and "No available kernel" in refused[0][2]
    name, fn, _, pinned = got[2]
    calls.clear()
    fn()  # outside the pin: no backend selected by the call itself
    assert calls == [("sdpa", None)], calls
    calls.clear()
    with pinned():
        fn()
        fn()
    assert calls == [("enter", "CUDNN"), ("sdpa", "CUDNN"), ("sdpa", "CUDNN")], calls


def main(argv):
    kernelevo = argv[1] if len(argv) > 1 else os.path.join(att.ROOT, "build", "tool", "kernelevo")
    test_flops()
    ct.SM_COUNT = 132  # the specs' sm_count, as on an H100 or H200
    specs = test_geometry(kernelevo)
    test_spec_launcher_passes_the_decode_kernels_clusters(specs)
    test_hopper_arguments(specs)
    test_configs_within_constraints(specs)
    test_kernels_option()
    test_params_parser()
    test_table()
    test_per_shape_winners()
    test_host_bound_do_bench()
    test_rounds_option()
    test_sdpa_calls_pin_the_backend_around_plain_calls()
    print("attention_sdpa: all tests passed")
    return 0


def test_rounds_option():
    assert att.parse_args(["--out", "x"]).rounds == 3
    assert att.parse_args(["--out", "x", "--rounds", "1"]).rounds == 1
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            att.parse_args(["--out", "x", "--rounds", "0"])
    except SystemExit:
        return
    raise AssertionError("--rounds 0 accepted")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
