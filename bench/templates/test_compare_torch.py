#!/usr/bin/env python3
"""Tests of the benchmark's parts that need no GPU: the spec expression evaluator, launch
geometry and buffers from a spec, the lockfile lookup, the nvcc command and the tables.

  python3 bench/templates/test_compare_torch.py [KERNELEVO_BINARY]

With the binary, also reads every existing template's spec through `kernelevo scan` and
checks that entries.py matches it (kernel id, dimension names, launch geometry).
"""

import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_torch as ct  # noqa: E402
import entries  # noqa: E402
import results_table  # noqa: E402
from spec_expr import ExprError, evaluate  # noqa: E402


def raises(fn, *args):
    try:
        fn(*args)
    except ExprError as e:
        return str(e)
    raise AssertionError(f"no ExprError for {args}")


def test_expressions():
    n = {"rows": 4096, "cols": 8192, "B": 256, "T": 64}
    assert evaluate("2*rows*cols*4 + 2*cols*4", n) == 2 * 4096 * 8192 * 4 + 2 * 8192 * 4
    assert evaluate("ceil_div(rows, B / T)", n) == 1024
    assert evaluate("ceil_div(4097, 4)", {}) == 1025
    assert evaluate("ceil_div(-7, 2)", {}) == -3 and evaluate("ceil_div(-7, -2)", {}) == 4
    assert evaluate("-7 / 2", {}) == -3 and evaluate("-7 % 2", {}) == -1 and evaluate("7 % -2", {}) == 1
    assert evaluate("1 + 2 * 3 - 4 / 2", {}) == 5
    assert evaluate("(1 + 2) * 3", {}) == 9
    assert evaluate("min(3, max(1, 2))", {}) == 2
    assert evaluate("rows >= 4096 && cols != 1", n) == 1
    assert evaluate("1 < 2 == 1", {}) == 1  # relational binds tighter than equality
    assert evaluate("!0 + 1", {}) == 2 and evaluate("--3", {}) == 3
    assert evaluate("0 && 1 / 0", {}) == 0 and evaluate("1 || 1 % 0", {}) == 1  # short-circuit
    assert evaluate(" 7 ", {}) == 7
    assert evaluate("9223372036854775807", {}) == 2**63 - 1
    assert "division by zero" in raises(evaluate, "rows / (cols - 8192)", n)
    assert "modulo by zero" in raises(evaluate, "1 % 0", {})
    assert "overflow" in raises(evaluate, "9223372036854775807 + 1", {})
    assert "overflow" in raises(evaluate, "rows * rows * rows * rows * rows * rows", n)
    assert "unknown name 'depth'" in raises(evaluate, "depth + 1", n)
    assert "unknown function" in raises(evaluate, "pow(2, 3)", {})
    assert "unexpected character" in raises(evaluate, "2 ^ 3", {})
    assert "unexpected" in raises(evaluate, "2 3", {})
    assert "expected ')'" in raises(evaluate, "(2 + 3", {})


SPEC = {
    "id": "softmax_rows",
    "kernel": "softmax_rows",
    "defaults": {"BLOCK": 256, "ROW_THREADS": 256, "KIND": "float4"},
    "args": [
        {"name": "x", "type": "float", "pointer": True, "count": "rows*cols", "init": "normal"},
        {"name": "y", "type": "float", "pointer": True, "count": "rows*cols", "output": True},
        {"name": "rows", "type": "int32_t", "pointer": False, "value": "rows"},
        {"name": "eps", "type": "float", "pointer": False, "value": 1e-05},
    ],
    "launch": {"grid": ["ceil_div(rows, BLOCK / ROW_THREADS)"], "block": ["BLOCK"], "shared_bytes": "BLOCK * 4"},
    "metrics": {"bytes": "2*rows*cols*4", "flops": None},
    "defines": ["EXTRA=1"],
    "include_dirs": ["inc"],
    "flags": ["-lineinfo"],
}


def test_geometry_and_metrics():
    dims = {"rows": 4097, "cols": 1000}
    names = ct.names_for(dims, {"BLOCK": 512, "ROW_THREADS": 128, "KIND": "float4"})
    assert "KIND" not in names and names["rows"] == 4097
    assert ct.geometry(SPEC, names) == ([1025], [512], 2048)
    assert ct.metric_bytes(SPEC, names) == 2 * 4097 * 1000 * 4
    no_shared = dict(SPEC, launch={"grid": ["rows"], "block": ["BLOCK", "2"], "shared_bytes": None})
    assert ct.geometry(no_shared, ct.names_for(dims, SPEC["defaults"])) == ([4097], [256, 2], 0)
    assert ct.metric_bytes(dict(SPEC, metrics={"bytes": None}), names) is None


def test_sm_count_is_the_devices_once_known():
    persistent = dict(SPEC, launch={"grid": ["min(rows, sm_count)"], "block": ["BLOCK"], "shared_bytes": None})
    assert "sm_count" not in ct.names_for({"rows": 4097}, {})

    class Props:
        multi_processor_count = 114

    class FakeTorch:
        class cuda:
            current_device = staticmethod(lambda: 0)
            get_device_properties = staticmethod(lambda i: Props)

    try:
        ct.use_device_sm_count(FakeTorch)
        assert ct.geometry(persistent, ct.names_for({"rows": 4097}, {"BLOCK": 256}))[0] == [114]
        assert ct.geometry(persistent, ct.names_for({"rows": 100}, {"BLOCK": 256}))[0] == [100]
    finally:
        ct.SM_COUNT = None


def test_spec_launcher_passes_clusters_in_the_drivers_terms():
    calls = []

    class Driver:
        def allow_dynamic_shared(self, fn, nbytes):
            calls.append(("shared", nbytes))

        def launcher(self, fn, grid, block, shared, stream, args, cluster=1):
            calls.append(("launch", grid, block, shared, cluster))
            return "launch"

    clustered = dict(SPEC, launch={"grid": ["rows * S"], "block": ["BLOCK"], "shared_bytes": "64",
                                   "cluster": "S"})
    names = {"rows": 10, "S": 4, "BLOCK": 128}
    assert ct.cluster_of(clustered, names) == 4
    assert ct.cluster_of(SPEC, names) == 1
    launch, geometry = ct.spec_launcher(Driver(), "fn", clustered, names, 0, [])
    assert launch == "launch"
    assert geometry == {"grid": [40], "block": [128], "shared_bytes": 64, "cluster": 4}
    # the spec's grid counts CTAs; the driver's launcher counts clusters when it has them
    assert calls == [("shared", 64), ("launch", [10], [128], 64, 4)]


def test_winner_lookup():
    lock = {"kernels": {"k": {"targets": {
        "sm_90": {"NVIDIA H200": {"params": {"B": 512}}, "NVIDIA H100": {"default": True, "params": {"B": 128}}},
        "sm_80": {"NVIDIA A100": {"params": {"B": 64}}}}}}}
    assert ct.winner_params(lock, "k", "sm_90", "NVIDIA H200") == ({"B": 512}, "NVIDIA H200")
    assert ct.winner_params(lock, "k", "sm_90", "NVIDIA GH200") == ({"B": 128}, "NVIDIA H100")
    assert ct.winner_params(lock, "k", "sm_80", "NVIDIA A800") == ({"B": 64}, "NVIDIA A100")
    assert ct.winner_params(lock, "k", "sm_89", "x") == (None, None)
    assert ct.winner_params(lock, "other", "sm_90", "x") == (None, None)
    assert ct.winner_params(None, "k", "sm_90", "x") == (None, None)
    # An entry with buckets answers for a shape only: its bucket's winner.
    lock["kernels"]["b"] = {"targets": {"sm_90": {"NVIDIA H200": {"by": "cols", "buckets": [
        {"params": {"B": 64}, "range": [0, 2048]}, {"params": {"B": 512}, "range": [2048, None]}]}}}}
    assert ct.winner_params(lock, "b", "sm_90", "NVIDIA H200", {"rows": 1, "cols": 4096}) == ({"B": 512}, "NVIDIA H200")
    try:
        ct.winner_params(lock, "b", "sm_90", "NVIDIA H200")
        raise AssertionError("no Skip")
    except ct.Skip as e:
        assert "winner per bucket of cols" in str(e)


def test_nvcc_command():
    cmd = ct.nvcc_command("nvcc", "/src/t/softmax.cu", "sm_90", {"VEC": 4, "B": 256, "R": 0.5, "K": "float4"},
                          SPEC, "/out/a.cubin")
    assert cmd == ["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-DB=256", "-DK=float4", "-DR=0.5", "-DVEC=4",
                   "-DEXTRA=1", "-I/src/t", "-I/src/t/inc", "-lineinfo", "/src/t/softmax.cu", "-o",
                   "/out/a.cubin"], cmd
    own_std = dict(SPEC, flags=["-std=c++20"], defines=[], include_dirs=[])
    assert ct.nvcc_command("nvcc", "/s/a.cu", "sm_80", None, own_std, "o")[3:] == ["-I/s", "-std=c++20", "/s/a.cu",
                                                                                  "-o", "o"]
    # A one-size bucket's size define comes after the spec's defines.
    sized = ct.nvcc_command("nvcc", "/s/a.cu", "sm_90", {"B": 1}, SPEC, "o", ["KERNELEVO_SIZE_cols=1024"])
    assert sized[4:7] == ["-DB=1", "-DEXTRA=1", "-DKERNELEVO_SIZE_cols=1024"], sized
    # ... in place of a spec define of its name.
    both = dict(SPEC, defines=["EXTRA=1", "KERNELEVO_SIZE_cols=7", "KERNELEVO_SIZE_colsx"])
    sized = ct.nvcc_command("nvcc", "/s/a.cu", "sm_90", {}, both, "o", ["KERNELEVO_SIZE_cols=1024"])
    assert [c for c in sized if c.startswith("-D")] == ["-DEXTRA=1", "-DKERNELEVO_SIZE_colsx",
                                                        "-DKERNELEVO_SIZE_cols=1024"], sized


def test_kernel_arch():
    assert ct.kernel_arch({"arch": "sm_90a"}, "sm_90") == "sm_90a"
    assert ct.kernel_arch({"arch": None}, "sm_90") == "sm_90"
    assert ct.kernel_arch({}, "sm_80") == "sm_80"


def test_tolerances_and_errors():
    e = entries.by_template("softmax")
    assert ct.tolerance(e, SPEC) == entries.TOLERANCES["float"]
    bf16 = dict(SPEC, args=[dict(a, type="__nv_bfloat16") if a["name"] == "y" else a for a in SPEC["args"]])
    assert ct.tolerance(e, bf16) == entries.TOLERANCES["__nv_bfloat16"]
    assert ct.tolerance(entries.by_template("sum"), SPEC) == (1e-5, 0.5)
    nan = float("nan")
    assert ct.worse_error(1.0, 2.0) == 2.0 and math.isnan(ct.worse_error(nan, 3.0))
    assert math.isnan(ct.worse_error(3.0, nan))


def test_compile_setup():
    """compile_torch_fn resets dynamo's caches, then compiles the very function with static
    shapes; --no-compile turns the column off."""
    calls = []

    class FakeDynamo:
        @staticmethod
        def reset():
            calls.append("reset")

    class FakeTorch:
        _dynamo = FakeDynamo

        @staticmethod
        def compile(fn, **kwargs):
            calls.append(("compile", fn, kwargs))
            return "compiled"

    def fn(a, d):
        return []

    assert ct.compile_torch_fn(FakeTorch, fn) == "compiled"
    assert calls == ["reset", ("compile", fn, {"dynamic": False})]
    assert ct.parse_args(["--out", "o", "--kernelevo", "k", "--no-compile"]).no_compile
    assert not ct.parse_args(["--out", "o", "--kernelevo", "k", "softmax"]).no_compile
    assert ct.error_text(RuntimeError("  a\nb  ")) == "RuntimeError: a\nb" and len(ct.error_text(ValueError("x" * 5000))) == 2000


def test_entries():
    kernels = [e.kernel for e in entries.ENTRIES]
    assert len(kernels) == len(set(kernels)) == 21
    assert entries.template_names()[-4:] == ["sgemm", "gemm_tc", "gemm_wgmma", "gemm_sm90"]
    assert {"add_rmsnorm_bf16", "rope_bf16"} <= set(entries.template_names())
    assert [e.kernel for e in entries.of_template("gemm_tc")] == ["gemm_tc_f16", "gemm_tc_bf16"]
    assert [e.kernel for e in entries.of_template("gemm_sm90")] == ["gemm_sm90_f16", "gemm_sm90_bf16",
                                                                     "gemm_sm90_fp8", "gemm_sm90_bf16_gelu"]
    for e in entries.ENTRIES:
        assert len(e.shapes) >= 2, e.template
        # torch.compile is timed for every memory-bound template, not for the GEMMs.
        assert e.memory_bound == ("gemm" not in e.template), e.template
    assert entries.by_template("nope") is None


ROWS = [
    {"template": "softmax", "kernel": "softmax_rows", "shape": {"rows": 4096, "cols": 8192}, "tuned_shape": True,
     "status": "ok", "winner_params": {"SOFTMAX_BLOCK": 512}, "ours_us": 74.26, "defaults_us": 91.1, "torch_us": 143.9, "ratio": 143.9 / 74.26,
     "gbps": 3614.2, "copy_fraction": 0.859, "speedup_vs_defaults": 91.1 / 74.26, "max_error": 1.2e-7,
     "agree": True, "ours_us_dobench": 80.04, "torch_us_dobench": 150.0, "ratio_dobench": 150.0 / 80.04,
     "compile_us": 90.0, "ratio_compile": 90.0 / 74.26, "compile_us_dobench": 96.0,
     "ratio_compile_dobench": 96.0 / 80.04, "compile_max_error": 0.0, "compile_agree": True},
    {"template": "sum", "kernel": "sum_reduce", "shape": {"n": 16777216}, "status": "ok", "ours_us": 20.0,
     "defaults_us": 20.0, "torch_us": 30.0, "ratio": 1.5, "gbps": 3355.4, "copy_fraction": None,
     "speedup_vs_defaults": None, "max_error": float("nan"), "agree": False},
    {"template": "swiglu", "shape": {}, "status": "skipped", "error": "templates/swiglu.cu does not exist"},
    {"template": "rope_bf16", "shape": {"tokens": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128},
     "status": "ok", "ours_us": 30.0, "defaults_us": 31.0, "torch_us": 200.0, "ratio": 200.0 / 30.0,
     "max_error": 0.0, "agree": True, "ours_us_dobench": 33.0, "torch_us_dobench": 210.0, "ratio_dobench": 210 / 33,
     "compile_error": "BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: x | y\nmore"},
]


def test_markdown_table():
    meta = {"device": "NVIDIA H200", "date": "2026-11-30T14:00:00Z", "torch": "2.11.0", "copy_gbps": 4207.3,
            "command": "bench/templates/run.sh out", "notes": ["softmax: 40 evaluations"]}
    md = results_table.markdown(meta, ROWS)
    lines = md.splitlines()
    assert lines[0] == "# Templates against PyTorch"
    assert "- device: NVIDIA H200" in lines and "- copy gbps: 4207 GB/s (kernelevo devices)" in lines
    assert "- command: bench/templates/run.sh out" in lines and "- softmax: 40 evaluations" in lines
    table = [l for l in lines if l.startswith("|")]
    assert table[0] == "| " + " | ".join(results_table.COLUMNS) + " |"
    assert all(l.count("|") == len(results_table.COLUMNS) + 1 for l in table), table
    assert table[2] == ("| softmax | 4096x8192* | one winner | 74.3 | 91.1 | 143.9 | 1.94 | 90.0 | 1.21 | 3614 | 85.9 | 1.23x | 80.0 | "
                        "150.0 | 1.87 | 96.0 | 1.20 | 1.20e-07 | yes | yes |"), table[2]
    # No compile numbers (a GEMM, or --no-compile): dashes.
    assert table[3] == ("| sum | n=16777216 | defaults | 20.0 | 20.0 | 30.0 | 1.50 | - | - | 3355 | - | - | - | - | - | - | - | nan | "
                        "NO | - |"), table[3]
    assert table[4].startswith("| swiglu | - | skipped: templates/swiglu.cu does not exist |")
    # A shape torch.compile failed on: the cell says so (first line, no table-breaking '|').
    assert table[5] == ("| rope_bf16 | 4096x(32+8)x128 | defaults | 30.0 | 31.0 | 200.0 | 6.67 | "
                        "failed: BackendCompilerFailed: backend='inductor' raised: | - | - | - | - | 33.0 | 210.0 | "
                        "6.36 | failed | - | 0.00e+00 | yes | - |"), table[5]
    long = dict(ROWS[3], compile_error="E" * 500)
    assert len(results_table.compile_failure(long)) == len("failed: ") + 120
    assert "ratio compile/ours > 1:" in md and "- compile:" not in md
    assert "- compile: torch.compile(...)" in results_table.markdown(dict(meta, compile="torch.compile(...)"), ROWS)
    assert results_table.shape_text({"rows": 8192, "hidden": 14336}) == "8192x14336"
    assert results_table.shape_text({"tokens": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128}) == "4096x(32+8)x128"
    assert results_table.shape_text({"n": 5, "m": 2}) == "m=2,n=5"
    assert "†" not in md


def test_time_in_rounds_alternates_the_sides():
    # Every round times each candidate by each timer before the next candidate, so a drift over
    # the run lands on every side; every second round runs them in reverse, so a drift within a
    # round favours none; a candidate's pinned context is entered around its timing, and one
    # naming its timers is timed by those only.
    log = []

    class Pin:
        def __enter__(self):
            log.append("enter")

        def __exit__(self, *exc):
            log.append("exit")

    clock = iter(range(100))

    def timer(label):
        def time(fn):
            log.append((fn(), label))
            return float(next(clock))
        return time

    timers = {"us": timer("clean"), "do_bench_us": timer("bench")}
    got = ct.time_in_rounds([("ours", lambda: "ours", None), ("cudnn", lambda: "cudnn", Pin)], timers, 3)
    assert log == [("ours", "clean"), ("ours", "bench"), "enter", ("cudnn", "clean"), ("cudnn", "bench"), "exit",
                   "enter", ("cudnn", "clean"), ("cudnn", "bench"), "exit", ("ours", "clean"), ("ours", "bench"),
                   ("ours", "clean"), ("ours", "bench"), "enter", ("cudnn", "clean"), ("cudnn", "bench"), "exit"]
    assert got == {"ours": {"us": [0.0, 6.0, 8.0], "do_bench_us": [1.0, 7.0, 9.0]},
                   "cudnn": {"us": [2.0, 4.0, 10.0], "do_bench_us": [3.0, 5.0, 11.0]}}
    assert ct.time_in_rounds([("ours", lambda: 0, None)], timers, 0) == {"ours": {"us": [], "do_bench_us": []}}
    log.clear()
    got = ct.time_in_rounds([("a", lambda: "a", None, {"us"}), ("b", lambda: "b", None, {"us", "do_bench_us"})],
                            timers, 1, first_round=1)  # an odd round: reversed
    assert log == [("b", "clean"), ("b", "bench"), ("a", "clean")], log
    assert got == {"a": {"us": [14.0]}, "b": {"us": [12.0], "do_bench_us": [13.0]}}


def test_rounds_option():
    assert ct.parse_args(["--out", "x", "--kernelevo", "k"]).rounds == 3
    assert ct.parse_args(["--out", "x", "--kernelevo", "k", "--rounds", "1"]).rounds == 1
    import contextlib
    import io

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            ct.parse_args(["--out", "x", "--kernelevo", "k", "--rounds", "0"])
    except SystemExit:
        return
    raise AssertionError("--rounds 0 accepted")


def test_host_bound_do_bench_cells():
    # A call the host takes longer to issue than do_bench's clearing keeps the GPU busy: its
    # do_bench cell is marked and the table says why; the others are not.
    meta = {"device": "NVIDIA H200", "clearing_us": 60.0}
    row = dict(ROWS[0], ours_host_us=8.0, torch_host_us=25.0, compile_host_us=75.0)
    md = results_table.markdown(meta, [row])
    table = [l for l in md.splitlines() if l.startswith("|")]
    assert "| 80.0 | 150.0 | 1.87 | 96.0† | 1.20 |" in table[2], table[2]
    assert any(l.startswith("†: issuing the call took the host longer") and "(60 us)" in l
               for l in md.splitlines()), md
    # Without the clearing's time (an older run's meta) nothing is marked.
    assert "†" not in results_table.markdown({"device": "x"}, [row])


def test_write_files():
    with tempfile.TemporaryDirectory() as d:
        results_table.write(d, {"device": "x"}, ROWS)
        data = json.load(open(os.path.join(d, "templates.json")))
        assert data["meta"] == {"device": "x"} and len(data["rows"]) == 4
        assert data["rows"][0]["ours_us"] == 74.26 and data["rows"][0]["compile_us"] == 90.0
        assert data["rows"][1]["max_error"] is None  # NaN is not JSON
        assert data["rows"][3]["compile_error"].startswith("BackendCompilerFailed")
        assert open(os.path.join(d, "templates.md")).read().count("\n| ") == 5


def test_demotion_kernel_is_the_runners():
    """The events timers' flush demotes lines with the runner's own kev_demote_l2, read from
    tool/cuda/helper_kernels.cpp: the whole function and the typedef it needs."""
    text = ct.demote_source()
    assert text.startswith("typedef unsigned long long u64;\n"), text
    assert 'extern "C" __global__ void kev_demote_l2(const char* p, u64 bytes) {' in text, text
    assert "applypriority.global.L2::evict_normal" in text and text.endswith("\n}\n"), text
    assert text.count("{") == text.count("}"), text


def test_tune_note_reads_a_template_or_a_kernel_tune():
    entry = entries.of_template("gemm_sm90")[2]
    plan = {"spec": {"id": "gemm_sm90_fp8"}, "lock_entry": {"params": {"G90_FP8_BN": 256}},
            "arch": "sm_90a", "lock_device": "H200"}
    with tempfile.TemporaryDirectory() as d:
        assert "no tune result (see tune_gemm_sm90.log)" in ct.tune_note(d, entry, plan)
        with open(os.path.join(d, "tune_gemm_sm90_fp8.json"), "w") as f:  # sm90-run.sh's name
            json.dump({"kernels": [{"id": "gemm_sm90_fp8", "evaluations": 40}]}, f)
        assert ct.tune_note(d, entry, plan) == "gemm_sm90: 40 evaluations; winner G90_FP8_BN=256 (sm_90a, H200)"
        with open(os.path.join(d, "tune_gemm_sm90.json"), "w") as f:  # run.sh's, both kernels' rows
            json.dump({"kernels": [{"id": "gemm_sm90_f16", "evaluations": 9},
                                   {"id": "gemm_sm90_fp8", "evaluations": 60}]}, f)
        assert ct.tune_note(d, entry, plan).startswith("gemm_sm90: 60 evaluations;")


def test_real_specs(kernelevo):
    """Every template entries.py names that exists: its spec, read through kernelevo scan,
    has the kernel id, the dimension names and launch expressions the benchmark needs."""
    checked = 0
    for e in entries.ENTRIES:
        source = os.path.join("templates", e.template + ".cu")
        if not os.path.exists(os.path.join(ct.ROOT, source)):
            continue
        spec = ct.load_spec(kernelevo, source, e.kernel)
        assert spec["id"] == e.kernel, (e.template, spec["id"])
        assert spec["defaults"] and set(spec["defaults"]) == set(spec["params"]), e.template
        assert "<" not in spec["kernel"], e.template
        assert any(a.get("output") or a.get("inout") for a in spec["args"]), e.template
        for dims in e.shapes:
            names = ct.names_for(dims, spec["defaults"])
            grid, block, _ = ct.geometry(spec, names)
            assert all(g > 0 for g in grid) and all(b > 0 for b in block), (e.template, dims)
            for a in spec["args"]:
                if a.get("tensor_map"):
                    tm = a["tensor_map"]
                    assert [evaluate(x, names) for x in tm["box"]], (e.template, a["name"])
                    assert any(b["name"] == tm["of"] and b["pointer"] for b in spec["args"]), e.template
                elif a["pointer"]:
                    assert evaluate(a["count"], names) > 0, (e.template, a["name"])
                elif not isinstance(a["value"], (int, float)):
                    evaluate(a["value"], dims)
            assert ct.metric_bytes(spec, names), e.template
        checked += 1
    softmax = ct.load_spec(kernelevo, "templates/softmax.cu", "softmax_rows")
    assert [a["name"] for a in softmax["args"]] == ["x", "y", "rows", "cols"]
    names = ct.names_for({"rows": 4096, "cols": 8192}, softmax["defaults"])
    # The spec's lets reach the geometry expanded: the defaults give 256 threads per row of
    # 8192 floats (32 per thread) and one row per 256-thread block; 32 threads per row of 1024.
    assert (softmax["defaults"]["SOFTMAX_BLOCK"], softmax["defaults"]["SOFTMAX_VEC"] * softmax["defaults"]["SOFTMAX_UNROLL"]) == (256, 32)
    assert ct.geometry(softmax, names) == ([4096], [256], 0)
    assert ct.geometry(softmax, ct.names_for({"rows": 4096, "cols": 1024}, softmax["defaults"])) == ([512], [256], 0)
    assert ct.metric_bytes(softmax, names) == 2 * 4096 * 8192 * 4
    assert {"rows": 4096, "cols": 8192} in softmax["problems"] and {"rows": 3, "cols": 1000} in softmax["validate"]
    print(f"  real specs: {checked} templates checked")


SMALL = {"rows": 5, "cols": 72, "hidden": 24, "n": 1000, "tokens": 9, "heads": 3, "kv_heads": 2, "head_dim": 16,
         "M": 32, "N": 16, "K": 24}


def test_with_torch_on_cpu(kernelevo):
    """With PyTorch (CPU is enough): each entry's PyTorch code runs on the buffers made from
    its real spec, and check() accepts a correct output, rejects a wrong one and one left
    unwritten (poisoned)."""
    import torch

    ct.DEVICE = "cpu"
    for e in entries.ENTRIES:
        source = os.path.join("templates", e.template + ".cu")
        if not os.path.exists(os.path.join(ct.ROOT, source)):
            continue
        spec = ct.load_spec(kernelevo, source, e.kernel)
        dims = {k: SMALL[k] for k in e.shapes[0]}
        values, outputs, inouts = ct.make_args(torch, spec, dims, [spec["defaults"]])
        expected = e.torch_fn(values, dims)
        rtol, atol = ct.tolerance(e, spec)

        def correct():
            for (_, t), want in zip(outputs, expected):
                t.copy_(want.reshape(-1).to(t.dtype))

        def wrong():
            correct()
            outputs[0][1][-1] += 1

        err, agree = ct.check(torch, correct, outputs, inouts, expected, rtol, atol)
        assert agree and err == 0.0, (e.template, err)
        assert not ct.check(torch, wrong, outputs, inouts, expected, rtol, atol)[1], e.template
        err, agree = ct.check(torch, lambda: None, outputs, inouts, expected, rtol, atol)
        if all(a.get("inout") for a, _ in outputs):  # in place (rope): the input left as it was
            assert not agree and err > 0.1, (e.template, err)
        else:
            assert not agree and err != err, (e.template, err)  # NaN: poison left in place
        for a in spec["args"]:
            if a["pointer"] and not a.get("output"):
                t = values[a["name"]]
                assert t.numel() == evaluate(a["count"], ct.names_for(dims, spec["defaults"])), (e.template, a)
                if a.get("init") == "randint":
                    assert t.float().min() >= a["init_range"][0] and t.float().max() < a["init_range"][1]
    ct.DEVICE = "cuda"


class FakeDriver:
    """Stands in for cuda_launch.Driver: its "kernel" writes PyTorch's answer (optionally
    spoiled) into the outputs, so measure_shape runs end to end without a GPU."""

    def __init__(self):
        self.kernel = None

    def function(self, image, name):
        return name

    def allow_dynamic_shared(self, fn, nbytes):
        pass

    def launcher(self, fn, grid, block, shared, stream, args, cluster=1):
        return lambda: self.kernel()


def test_measure_shape_with_a_fake_driver(kernelevo):
    import torch

    ct.DEVICE = "cpu"
    e = entries.by_template("layernorm")
    spec = ct.load_spec(kernelevo, "templates/layernorm.cu", e.kernel)
    driver = FakeDriver()
    real_make_args = ct.make_args

    def make_args(torch_, spec_, dims_, param_sets, spoil=False):
        values, outputs, inouts = real_make_args(torch_, spec_, dims_, param_sets)

        def kernel():
            outputs[0][1].copy_(e.torch_fn(values, dims_)[0].reshape(-1))
            if spoil:
                outputs[0][1][0] += 1.0

        driver.kernel = kernel
        return values, outputs, inouts

    times = iter([50.0, 80.0, 120.0] * 2)
    dobench_times = iter([55.0, 110.0] * 2)
    host_times = iter([7.0, 30.0] * 2)
    ctx = {"torch": torch, "driver": driver, "bench": lambda fn: (fn(), next(times))[1], "copy_gbps": 4000.0,
           "bench_dobench": lambda fn: (fn(), next(dobench_times))[1],
           "host_us": lambda fn: (fn(), next(host_times))[1]}
    winner = dict(spec["defaults"], LAYERNORM_BLOCK=512)
    plan = {"entry": e, "spec": spec, "lock_entry": {"params": winner}, "winners": [(winner, None)],
            "defaults": spec["defaults"], "functions": {"ours0": "k", "defaults": "k"}}
    dims = {"rows": 4096, "cols": 64}
    try:
        ct.make_args = make_args
        row = ct.measure_shape(ctx, plan, dims)
        ct.make_args = lambda *a: make_args(*a, spoil=True)
        spoiled = ct.measure_shape(ctx, plan, {"rows": 3, "cols": 64})
    finally:
        ct.make_args = real_make_args
        ct.DEVICE = "cuda"
    assert row["agree"] and row["max_error"] == 0.0 and not row["tuned_shape"]
    assert (row["ours_us"], row["defaults_us"], row["torch_us"]) == (50.0, 80.0, 120.0)
    assert row["ratio"] == 120.0 / 50.0 and row["speedup_vs_defaults"] == 80.0 / 50.0
    assert (row["ours_us_dobench"], row["torch_us_dobench"], row["ratio_dobench"]) == (55.0, 110.0, 2.0)
    assert (row["ours_host_us"], row["torch_host_us"]) == (7.0, 30.0)
    rows_per_block = 512 // 32  # a row of 64 floats takes one warp
    assert row["ours_geometry"] == {"grid": [-(-4096 // rows_per_block)], "block": [512], "shared_bytes": 0,
                                    "cluster": 1}
    assert row["bytes"] == 2 * 4096 * 64 * 4 + 2 * 64 * 4
    assert abs(row["gbps"] - row["bytes"] / 50e-6 / 1e9) < 1e-9 and row["copy_fraction"] == row["gbps"] / 4000.0
    assert not spoiled["agree"] and spoiled["max_error"] >= 1.0 - 1e-6
    assert not any(k.startswith("compile") for k in row), row  # no ctx["compile"]: no column


def test_measure_shape_takes_the_bucket_winner(kernelevo):
    """With a lockfile entry of buckets, each shape launches its bucket's compiled winner (the
    nearest bucket's outside them all) with that winner's geometry, and the row says which."""
    import torch

    e = entries.by_template("layernorm")
    spec = ct.load_spec(kernelevo, "templates/layernorm.cu", e.kernel)
    small, large = dict(spec["defaults"], LAYERNORM_BLOCK=64), dict(spec["defaults"], LAYERNORM_BLOCK=1024)
    lock = {"by": "cols", "buckets": [{"params": small, "range": [64, 65]}, {"params": large, "range": [2048, 2049]}]}
    launched = []

    class Recording(FakeDriver):
        def launcher(self, fn, grid, block, shared, stream, args, cluster=1):
            def run():
                launched.append((fn, block[0]))
                if fn != "defaults":
                    self.kernel()
            return run

    driver = Recording()
    real_make_args = ct.make_args

    def make_args(torch_, spec_, dims_, param_sets):
        values, outputs, inouts = real_make_args(torch_, spec_, dims_, param_sets)
        driver.kernel = lambda: outputs[0][1].copy_(e.torch_fn(values, dims_)[0].reshape(-1))
        return values, outputs, inouts

    ctx = {"torch": torch, "driver": driver, "bench": lambda fn: (fn(), 10.0)[1]}
    plan = {"entry": e, "spec": spec, "lock_entry": lock, "winners": ct.winner_sets(lock),
            "defaults": spec["defaults"], "functions": {"ours0": "small", "ours1": "large", "defaults": "defaults"}}
    ct.DEVICE = "cpu"
    rows = []
    try:
        ct.make_args = make_args
        for cols in (64, 2048, 100, 1500):
            launched.clear()
            rows.append((ct.measure_shape(ctx, plan, {"rows": 4, "cols": cols}), list(launched)))
    finally:
        ct.make_args = real_make_args
        ct.DEVICE = "cuda"
    for (row, runs), want, inside in zip(rows, ("small", "large", "small", "large"), (True, True, False, False)):
        assert row["agree"] and row["winner_params"] == (small if want == "small" else large), row
        assert row["served_by"] == ("cols [64, 65)" if want == "small" else "cols [2048, 2049)")
        # the bucket's compile, with its size define also for a shape it serves as the nearest
        assert row["size_define"] == ("KERNELEVO_SIZE_cols=64" if want == "small" else "KERNELEVO_SIZE_cols=2048")
        assert row["bucket_inside"] is inside and {fn for fn, _ in runs} == {want, "defaults"}, runs
        # the winner's geometry: 64-thread blocks for the small one, 1024 for the large one
        assert all(b == (64 if want == "small" else 1024) for fn, b in runs if fn == want), runs


def measure_with_fakes(kernelevo, template, dims, compile_fn, kernel_id=None, memory_bound=None,
                       times=(50.0, 80.0, 120.0, 100.0), dobench_times=(55.0, 110.0, 105.0), rounds=None):
    """measure_shape on the CPU for `template` at `dims`, the fake kernel writing PyTorch's
    answer into every output (inout ones in place, as the real kernel does), `compile_fn`
    standing in for torch.compile; the fake timers give `times` and `dobench_times` in the order
    they are asked (by default, one round: ours 50 us, defaults 80, eager 120 and compiled 100;
    do_bench: 55, 110, 105)."""
    import dataclasses

    import torch

    e = next(x for x in entries.of_template(template) if kernel_id in (None, x.kernel))
    if memory_bound is not None:
        e = dataclasses.replace(e, memory_bound=memory_bound)
    spec = ct.load_spec(kernelevo, f"templates/{template}.cu", e.kernel)
    driver = FakeDriver()
    real_make_args = ct.make_args

    def make_args(torch_, spec_, dims_, param_sets):
        values, outputs, inouts = real_make_args(torch_, spec_, dims_, param_sets)

        def kernel():
            results = [r.reshape(-1).clone() for r in e.torch_fn(values, dims_)]
            for (_, t), r in zip(outputs, results):
                t.copy_(r)

        driver.kernel = kernel
        return values, outputs, inouts

    times, dobench_times = iter(times), iter(dobench_times)
    ctx = {"torch": torch, "driver": driver, "bench": lambda fn: (fn(), next(times))[1], "copy_gbps": 4000.0,
           "bench_dobench": lambda fn: (fn(), next(dobench_times))[1], "compile": compile_fn}
    if rounds is not None:
        ctx["rounds"] = rounds
    plan = {"entry": e, "spec": spec, "lock_entry": {"params": dict(spec["defaults"])},
            "winners": [(dict(spec["defaults"]), None)], "defaults": spec["defaults"],
            "functions": {"ours0": "k", "defaults": "k"}}
    ct.DEVICE = "cpu"
    try:
        ct.make_args = make_args
        return ct.measure_shape(ctx, plan, dims)
    finally:
        ct.make_args = real_make_args
        ct.DEVICE = "cuda"


def test_torch_compile_column_with_fakes(kernelevo):
    """The torch.compile column: the compiled function is entry.torch_fn itself, checked
    against eager on the reference's inputs (inout buffers restored after ours rotated them in
    place), timed by both timers; a compile that fails or disagrees is reported, not fatal; the
    GEMMs are not compiled."""
    compiled_fns = []

    def identity_compile(fn):  # "compiles" to eager, which must agree exactly
        compiled_fns.append(fn)
        return fn

    rope_dims = {"tokens": 9, "heads": 3, "kv_heads": 2, "head_dim": 16}
    for template, dims in (("add_rmsnorm_bf16", {"rows": 6, "cols": 40}), ("rope_bf16", rope_dims)):
        row = measure_with_fakes(kernelevo, template, dims, identity_compile)
        e = entries.by_template(template)
        assert compiled_fns[-1] is e.torch_fn, template
        assert row["agree"] and row["compile_agree"] and row["compile_max_error"] == 0.0, (template, row)
        assert (row["ours_us"], row["torch_us"], row["compile_us"]) == (50.0, 120.0, 100.0)
        assert row["ratio_compile"] == 2.0 and row["compile_us_dobench"] == 105.0
        assert row["ratio_compile_dobench"] == 105.0 / 55.0 and "compile_error" not in row
        assert abs(row["compile_gbps"] - row["bytes"] / 100e-6 / 1e9) < 1e-9

    def wrong_compile(fn):
        def compiled(a, d):
            return [r + 1 for r in fn(a, d)]
        return compiled

    row = measure_with_fakes(kernelevo, "rope_bf16", rope_dims, wrong_compile)
    assert row["agree"] and not row["compile_agree"] and row["compile_max_error"] >= 0.5
    assert row["compile_us"] == 100.0  # timed all the same; the table says it disagrees

    def failing_compile(fn):
        raise RuntimeError("backend='inductor' raised:\nsomething")

    row = measure_with_fakes(kernelevo, "add_rmsnorm_bf16", {"rows": 6, "cols": 40}, failing_compile)
    assert row["status"] == "ok" and row["agree"] and row["ours_us"] == 50.0 and row["torch_us"] == 120.0
    assert row["compile_error"] == "RuntimeError: backend='inductor' raised:\nsomething"
    assert "compile_us" not in row and "ratio_compile" not in row and "compile_us_dobench" not in row
    assert results_table.row_cells(row)[7] == "failed: RuntimeError: backend='inductor' raised:"

    def failing_call(fn):
        def compiled(a, d):
            raise RuntimeError("triton: out of resources")
        return compiled

    row = measure_with_fakes(kernelevo, "rope_bf16", rope_dims, failing_call)
    assert row["compile_error"].startswith("RuntimeError: triton") and "compile_us" not in row

    called = []
    row = measure_with_fakes(kernelevo, "gemm_tc", {"M": 32, "N": 16, "K": 16}, lambda fn: called.append(fn),
                             kernel_id="gemm_tc_f16")
    assert not called and "compile_us" not in row and "compile_error" not in row


def test_rounds_with_fakes(kernelevo):
    """Three rounds: the first times ours, the defaults, eager and compiled; the second eager,
    compiled and ours again in reverse order, the third in order; each figure the median of its
    rounds, the rounds kept. A compiled call that fails while timed loses its cells and says
    why; ours and eager stand."""
    dims = {"rows": 6, "cols": 40}
    row = measure_with_fakes(kernelevo, "add_rmsnorm_bf16", dims, lambda fn: fn, rounds=3,
                             times=(50.0, 80.0, 120.0, 100.0, 104.0, 118.0, 54.0, 52.0, 125.0, 99.0),
                             dobench_times=(55.0, 110.0, 105.0, 101.0, 112.0, 57.0, 56.0, 111.0, 103.0))
    assert row["rounds"] == 3 and row["agree"] and row["compile_agree"]
    assert row["rounds_us"] == {"ours": [50.0, 54.0, 52.0], "defaults": [80.0], "torch": [120.0, 118.0, 125.0],
                                "compile": [100.0, 104.0, 99.0]}, row["rounds_us"]
    assert row["rounds_us_dobench"] == {"ours": [55.0, 57.0, 56.0], "torch": [110.0, 112.0, 111.0],
                                        "compile": [105.0, 101.0, 103.0]}, row["rounds_us_dobench"]
    assert (row["ours_us"], row["defaults_us"], row["torch_us"], row["compile_us"]) == (52.0, 80.0, 120.0, 100.0)
    assert (row["ours_us_dobench"], row["torch_us_dobench"], row["compile_us_dobench"]) == (56.0, 111.0, 103.0)
    assert row["ratio_compile"] == 100.0 / 52.0 and row["ratio_dobench"] == 111.0 / 56.0
    assert row["ratio_compile_dobench"] == 103.0 / 56.0

    def fails_when_timed(fn):
        calls = []

        def compiled(a, d):
            calls.append(1)
            if len(calls) > 1 + ct.COMPILE_WARMUP_CALLS:  # checked and warmed, then it breaks
                raise RuntimeError("illegal memory access")
            return fn(a, d)
        return compiled

    row = measure_with_fakes(kernelevo, "add_rmsnorm_bf16", dims, fails_when_timed, rounds=3,
                             times=(50.0, 80.0, 120.0, 100.0, 104.0, 118.0, 54.0, 52.0, 125.0, 99.0),
                             dobench_times=(55.0, 110.0, 105.0, 101.0, 112.0, 57.0, 56.0, 111.0, 103.0))
    assert row["compile_error"] == "RuntimeError: illegal memory access" and row["compile_agree"]
    assert not any(k in row for k in ("compile_us", "compile_us_dobench", "ratio_compile", "ratio_compile_dobench"))
    assert "compile" not in row["rounds_us"] and "compile" not in row["rounds_us_dobench"]
    assert (row["ours_us"], row["torch_us"], row["ours_us_dobench"]) == (52.0, 120.0, 56.0) and row["agree"]


def test_real_torch_compile_on_cpu(kernelevo):
    """Opt-in (KERNELEVO_TEST_TORCH_COMPILE=1; inductor compiles C++ on the CPU, tens of
    seconds a shape): the real compile_torch_fn on the new fused templates' PyTorch code, as
    compare_torch calls it, agreeing with eager."""
    import torch

    for template, dims in (("add_rmsnorm_bf16", {"rows": 6, "cols": 40}),
                           ("rope_bf16", {"tokens": 9, "heads": 3, "kv_heads": 2, "head_dim": 16})):
        row = measure_with_fakes(kernelevo, template, dims, lambda fn: ct.compile_torch_fn(torch, fn))
        assert "compile_error" not in row, row["compile_error"]
        assert row["compile_agree"], (template, row["compile_max_error"])


def test_driver_argument_plumbing():
    """The kernel parameter array points at values of the right C types."""
    import ctypes

    import cuda_launch

    assert cuda_launch.scalar_arg("__nv_bfloat16", 1.0).value == 0x3F80
    assert cuda_launch.scalar_arg("__half", 1.0).value == 0x3C00
    assert abs(cuda_launch.scalar_arg("float", 1e-5).value - 1e-5) < 1e-12
    calls = []

    class Lib:
        def cuLaunchKernel(self, *args):
            calls.append(args)
            return 0

    driver = object.__new__(cuda_launch.Driver)
    driver.lib = Lib()
    args = [cuda_launch.pointer_arg(0x7F0000001000), cuda_launch.scalar_arg("int32_t", 4096),
            cuda_launch.scalar_arg("float", 0.5)]
    launch = driver.launcher("fn", [8], [256, 2], 1024, 0, args)
    launch()
    fn, gx, gy, gz, bx, by, bz, shared, _, params, extra = calls[0]
    assert (fn, gx, gy, gz, bx, by, bz, shared.value, extra) == ("fn", 8, 1, 1, 256, 2, 1, 1024, None)
    assert ctypes.cast(params[0], ctypes.POINTER(ctypes.c_uint64)).contents.value == 0x7F0000001000
    assert ctypes.cast(params[1], ctypes.POINTER(ctypes.c_int32)).contents.value == 4096
    assert ctypes.cast(params[2], ctypes.POINTER(ctypes.c_float)).contents.value == 0.5


def test_tensor_map_arguments():
    """A tensor map is encoded for its buffer with the configuration's box; zeros where the
    driver cannot describe the tensor (the runner's rule), without calling it."""
    import ctypes

    import cuda_launch

    calls = []

    class Lib:
        def cuTensorMapEncodeTiled(self, out, dtype, rank, address, dims, strides, box, elem, il, sw, l2, oob):
            calls.append((dtype, rank.value, address.value, list(dims), list(strides)[:rank.value - 1], list(box),
                          list(elem), il, sw, l2, oob))
            ctypes.cast(out, ctypes.POINTER(ctypes.c_uint64 * 16)).contents[0] = 0xABC
            return 0

    driver = object.__new__(cuda_launch.Driver)
    driver.lib = Lib()

    class Buffer:
        def __init__(self, address):
            self.address = address

        def data_ptr(self):
            return self.address

    spec = {"args": [{"name": "A", "type": "__nv_bfloat16", "pointer": True},
                     {"name": "K", "type": "int32_t", "pointer": False, "value": "K"},
                     {"name": "map_a", "pointer": False,
                      "tensor_map": {"of": "A", "dims": ["K", "M"], "box": ["64", "64 * MW"], "swizzle": 128}}]}
    values = {"A": Buffer(0x7F0000001000), "K": 1000}
    args = ct.kernel_args(spec, values, driver, {"K": 1000, "M": 300, "MW": 2})
    assert calls == [(9, 2, 0x7F0000001000, [1000, 300], [2000], [64, 128], [1, 1], 0, 3, 3, 0)]
    assert args[2][0] == 0xABC and len(bytes(args[2])) == 128
    assert cuda_launch.tensor_map_unusable("__nv_bfloat16", 0x1000, [33, 3]) is not None
    assert cuda_launch.tensor_map_unusable("__nv_bfloat16", 0x1008, [64, 3]) is not None
    assert cuda_launch.tensor_map_unusable("float", 0x1000, [4, 3]) is None
    zeros = ct.kernel_args(spec, {"A": Buffer(0x7F0000001000), "K": 33}, driver, {"K": 33, "M": 3, "MW": 1})
    assert len(calls) == 1 and not any(zeros[2])


def main():
    tests = [test_expressions, test_geometry_and_metrics, test_sm_count_is_the_devices_once_known,
             test_spec_launcher_passes_clusters_in_the_drivers_terms,
             test_winner_lookup, test_nvcc_command, test_kernel_arch,
             test_tolerances_and_errors, test_compile_setup, test_entries, test_markdown_table,
             test_host_bound_do_bench_cells, test_write_files,
             test_time_in_rounds_alternates_the_sides, test_rounds_option,
             test_driver_argument_plumbing, test_tensor_map_arguments,
             test_tune_note_reads_a_template_or_a_kernel_tune, test_demotion_kernel_is_the_runners]
    for t in tests:
        t()
        print(f"ok {t.__name__}")
    if len(sys.argv) > 1:
        ct.SM_COUNT = 132  # the specs' sm_count, as on an H100 or H200
        test_real_specs(os.path.abspath(sys.argv[1]))
        print("ok test_real_specs")
        try:
            import torch  # noqa: F401
        except ImportError:
            print("skipped test_with_torch_on_cpu, test_measure_shape_with_a_fake_driver, "
                  "test_torch_compile_column_with_fakes, test_rounds_with_fakes (no PyTorch)")
        else:
            test_with_torch_on_cpu(os.path.abspath(sys.argv[1]))
            print("ok test_with_torch_on_cpu")
            test_measure_shape_with_a_fake_driver(os.path.abspath(sys.argv[1]))
            print("ok test_measure_shape_with_a_fake_driver")
            test_measure_shape_takes_the_bucket_winner(os.path.abspath(sys.argv[1]))
            print("ok test_measure_shape_takes_the_bucket_winner")
            test_torch_compile_column_with_fakes(os.path.abspath(sys.argv[1]))
            print("ok test_torch_compile_column_with_fakes")
            test_rounds_with_fakes(os.path.abspath(sys.argv[1]))
            print("ok test_rounds_with_fakes")
            if os.environ.get("KERNELEVO_TEST_TORCH_COMPILE") == "1":
                test_real_torch_compile_on_cpu(os.path.abspath(sys.argv[1]))
                print("ok test_real_torch_compile_on_cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
