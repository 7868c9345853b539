#!/usr/bin/env python3
"""Tests of how the template benchmark reads a lockfile entry with a winner per bucket (a
spec with `dispatch`, as run.sh's PER_SHAPE=1 tunes): which bucket serves each shape (the
nearest outside them all, the lower on a tie, as the build's dispatcher), the size define a
one-size bucket's winner is compiled with, one compile per distinct winner and size define,
the table's "served by" column and notes, variants.py's per-shape base and run.sh's per-shape
dimension. Needs no GPU and no PyTorch.

  python3 bench/templates/test_buckets.py [KERNELEVO_BINARY]

With the binary, also copies each per-shape template with `kernelevo init --dispatch` and
checks that its spec still matches entries.py.
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import buckets  # noqa: E402
import compare_torch as ct  # noqa: E402
import entries  # noqa: E402
import results_table  # noqa: E402
import variants  # noqa: E402

# A per_problem entry of three buckets of cols, as `kernelevo tune` writes it for problems of
# 1024, 8192 and 16384 columns; the last two share a winner.
BUCKETS = {
    "buckets": [
        {"baseline_us": 40.2, "params": {"B": 128, "V": 8}, "range": [1024, 1025], "time_us": 31.0},
        {"baseline_us": 90.0, "params": {"B": 512, "V": 4}, "range": [8192, 8193], "time_us": 70.1},
        {"baseline_us": 200.0, "params": {"B": 512, "V": 4}, "range": [16384, 16385], "time_us": 150.0},
    ],
    "by": "cols",
    "default": True,
}


def raises_skip(fn, *args):
    try:
        fn(*args)
    except ct.Skip as e:
        return str(e)
    raise AssertionError(f"no Skip for {args}")


def test_bucket_index():
    ranges = [[0, 2048], [2048, 8192], [8192, None]]
    assert [buckets.bucket_index(ranges, v) for v in (0, 2047, 2048, 8191, 8192, 10**12)] == [0, 0, 1, 1, 2, 2]
    # Outside every bucket: the nearest by ratio (sizes scale), as core/buckets.h; the distance
    # to [lo, hi) above it is v / (hi - 1), below it lo / v.
    gaps = [[1024, 1025], [8192, 8193], [16384, 16385]]
    assert buckets.bucket_index(gaps, 1) == 0 and buckets.bucket_index(gaps, 2896) == 0
    assert buckets.bucket_index(gaps, 2897) == 1 and buckets.bucket_index(gaps, 11585) == 1
    assert buckets.bucket_index(gaps, 11586) == 2 and buckets.bucket_index(gaps, 1 << 40) == 2
    assert buckets.bucket_index([[16, 17], [4096, 4097]], 2048) == 1
    # A tie takes the lower bucket: 2048 is twice 1024 and half 4096.
    assert buckets.bucket_distance([1024, 1025], 2048) == buckets.bucket_distance([4096, 4097], 2048) == 2.0
    assert buckets.bucket_index([[1024, 1025], [4096, 4097]], 2048) == 0
    assert buckets.bucket_index([[1024, 1025], [4096, 4097]], 2049) == 1
    assert buckets.bucket_distance([1024, 1025], 1024) == 0 and buckets.bucket_index([[16, 17], [64, 65]], -3) == 0
    assert buckets.bucket_index([[5, 6]], -(2**63)) == 0
    assert ct.range_text([1024, 1025]) == "[1024, 1025)" and ct.range_text([8192, None]) == "[8192, inf)"


def test_size_define():
    # kernelevo compiles a one-size bucket's winner with KERNELEVO_SIZE_<by>=<lo>, no other.
    assert buckets.size_define("cols", [1024, 1025]) == "KERNELEVO_SIZE_cols=1024"
    assert buckets.size_define("n", (0, 1)) == "KERNELEVO_SIZE_n=0"
    assert buckets.size_define("cols", [1024, 2048]) is None  # a wider bucket
    assert buckets.size_define("cols", [8192, None]) is None  # an unbounded one
    assert buckets.size_define("cols", None) is None  # an entry without buckets
    assert buckets.size_define("cols", [1024, 1025], False) is None  # locked without it
    assert buckets.size_define("cols", [1024, 1025], True) == "KERNELEVO_SIZE_cols=1024"


def test_served_by():
    got = ct.served_by(BUCKETS, {"rows": 32768, "cols": 1024})
    assert got == {"params": {"B": 128, "V": 8}, "bucket": 0, "label": "cols [1024, 1025)", "inside": True,
                   "size_define": "KERNELEVO_SIZE_cols=1024"}
    got = ct.served_by(BUCKETS, {"rows": 8, "cols": 16384})
    assert got["bucket"] == 2 and got["inside"] and got["params"] == {"B": 512, "V": 4}
    assert got["size_define"] == "KERNELEVO_SIZE_cols=16384"
    # A shape no bucket holds: the nearest bucket's winner, marked as such, compiled as the build
    # compiles it: with that bucket's size define.
    got = ct.served_by(BUCKETS, {"rows": 3, "cols": 1000})
    assert got == {"params": {"B": 128, "V": 8}, "bucket": 0, "label": "cols [1024, 1025)", "inside": False,
                   "size_define": "KERNELEVO_SIZE_cols=1024"}
    assert ct.served_by(BUCKETS, {"rows": 2, "cols": 40000})["bucket"] == 2
    assert "split cols" in raises_skip(ct.served_by, BUCKETS, {"n": 5})
    assert "empty bucket list" in raises_skip(ct.served_by, dict(BUCKETS, buckets=[]), {"cols": 5})
    plain = {"params": {"B": 64}}
    assert ct.served_by(plain, {"cols": 5}) == {"params": {"B": 64}, "bucket": None, "label": None, "inside": None,
                                                "size_define": None}
    assert ct.served_by(None, {"cols": 5})["params"] is None and ct.served_by(None, {})["size_define"] is None
    wide = {"by": "cols", "buckets": [{"params": {"B": 64}, "range": [0, 2048]},
                                      {"params": {"B": 512}, "range": [2048, None]}]}
    assert [ct.served_by(wide, {"cols": c})["size_define"] for c in (5, 2048, 10**6)] == [None, None, None]


def test_lock_entry_and_winner_sets():
    h200 = {k: v for k, v in BUCKETS.items() if k != "default"}
    lock = {"kernels": {"k": {"targets": {
        "sm_90": {"NVIDIA H200": h200, "NVIDIA H100": {"default": True, "params": {"B": 128}}},
        "sm_80": {"NVIDIA A100": {"params": {"B": 64}}}}}}}
    assert ct.lock_entry(lock, "k", "sm_90", "NVIDIA H200") == (h200, "NVIDIA H200")
    assert ct.lock_entry(lock, "k", "sm_90", "NVIDIA GH200") == ({"default": True, "params": {"B": 128}},
                                                                  "NVIDIA H100")
    assert ct.lock_entry(lock, "k", "sm_80", "x") == ({"params": {"B": 64}}, "NVIDIA A100")
    assert ct.lock_entry(lock, "k", "sm_89", "x") == (None, None) and ct.lock_entry(None, "k", "a", "x") == (None, None)
    # The build compiles each distinct winner once with its size define: three one-size buckets,
    # two winners, three compiles; wide buckets sharing a winner, one.
    assert ct.winner_sets(BUCKETS) == [({"B": 128, "V": 8}, "KERNELEVO_SIZE_cols=1024"),
                                       ({"B": 512, "V": 4}, "KERNELEVO_SIZE_cols=8192"),
                                       ({"B": 512, "V": 4}, "KERNELEVO_SIZE_cols=16384")]
    wide = {"by": "cols", "buckets": [{"params": {"B": 64}, "range": [0, 2048]},
                                      {"params": {"B": 64}, "range": [2048, None]}]}
    assert ct.winner_sets(wide) == [({"B": 64}, None)]
    assert ct.winner_sets({"params": {"B": 64}}) == [({"B": 64}, None)] and ct.winner_sets(None) == []
    # A bucket locked without its size define ("sized": false) is compiled without it.
    unsized = dict(BUCKETS, buckets=[dict(BUCKETS["buckets"][1], sized=False)])
    assert ct.winner_sets(unsized) == [({"B": 512, "V": 4}, None)]
    assert ct.served_by(unsized, {"cols": 8192})["size_define"] is None


SPEC = {"id": "k", "kernel": "k", "defaults": {"B": 256, "V": 4}, "params": {"B": [], "V": []},
        "args": [], "launch": {"grid": ["rows"], "block": ["B"]}, "problems": []}


def plan_for(lock, root):
    entry = entries.Entry("softmax", "k", [{"rows": 8, "cols": 1024}], None, "")
    ctx = {"kernelevo": "kev", "nvcc": "nvcc", "arch": "sm_90", "device": "NVIDIA H200", "out": root,
           "lock": {"kernels": {"k": {"targets": {"sm_90": {"NVIDIA H200": lock}}}}} if lock else None,
           "source_root": root}
    real = ct.load_spec
    try:
        ct.load_spec = lambda kev, source, kernel_id, root_: dict(SPEC, seen=(source, root_))
        return ct.prepare(ctx, entry)
    finally:
        ct.load_spec = real


def test_prepare_compiles_each_distinct_winner():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "templates"))
        open(os.path.join(d, "templates", "softmax.cu"), "w").close()
        plan = plan_for(BUCKETS, d)
        assert plan["spec"]["seen"] == ("templates/softmax.cu", d)  # the per-shape copy, under the root
        # A compile per one-size bucket, each with its size define, though two share a winner.
        assert sorted(plan["commands"]) == ["defaults", "ours0", "ours1", "ours2"]
        assert "-DB=128" in plan["commands"]["ours0"] and "-DV=8" in plan["commands"]["ours0"]
        assert "-DB=512" in plan["commands"]["ours1"] and "-DB=512" in plan["commands"]["ours2"]
        sizes = {w: [c for c in cmd if c.startswith("-DKERNELEVO_SIZE_")] for w, cmd in plan["commands"].items()}
        assert sizes == {"ours0": ["-DKERNELEVO_SIZE_cols=1024"], "ours1": ["-DKERNELEVO_SIZE_cols=8192"],
                         "ours2": ["-DKERNELEVO_SIZE_cols=16384"], "defaults": []}, sizes
        assert not any(c.startswith("-DB") for c in plan["commands"]["defaults"])
        assert plan["commands"]["ours0"][-3] == os.path.join(d, "templates", "softmax.cu")
        # Each shape times its bucket's compiled winner (the nearest bucket's compile outside them all).
        for cols, key in ((1024, "ours0"), (1000, "ours0"), (8192, "ours1"), (16384, "ours2"), (40000, "ours2")):
            assert ct.ours_key(plan, ct.served_by(plan["lock_entry"], {"cols": cols})) == key, cols
        wide = plan_for({"by": "cols", "buckets": [{"params": {"B": 64}, "range": [0, 2048]},
                                                   {"params": {"B": 64}, "range": [2048, None]}]}, d)
        assert sorted(wide["commands"]) == ["defaults", "ours0"]
        assert not any(c.startswith("-DKERNELEVO_SIZE_") for c in wide["commands"]["ours0"])
        plain = plan_for({"params": {"B": 64}}, d)
        assert sorted(plain["commands"]) == ["defaults", "ours0"] and "-DB=64" in plain["commands"]["ours0"]
        assert not any(c.startswith("-DKERNELEVO_SIZE_") for c in plain["commands"]["ours0"])
        none = plan_for(None, d)
        assert sorted(none["commands"]) == ["defaults", "ours0"]
        assert ct.ours_key(none, ct.served_by(None, {"cols": 5})) == "ours0"
        assert "does not exist" in raises_skip(ct.prepare, {"source_root": os.path.join(d, "no")},
                                               entries.by_template("sum"))


def test_table_and_notes():
    row = {"template": "layernorm", "shape": {"rows": 32768, "cols": 1024}, "tuned_shape": True, "status": "ok",
           "ours_us": 34.5, "winner_params": {"B": 128}, "served_by": "cols [1024, 1025)", "bucket": 0,
           "bucket_inside": True}
    cells = results_table.row_cells(row)
    assert cells[:4] == ["layernorm", "32768x1024*", "cols [1024, 1025)", "34.5"], cells
    assert len(cells) == len(results_table.COLUMNS) and results_table.COLUMNS[2] == "served by"
    outside = dict(row, shape={"rows": 3, "cols": 1000}, tuned_shape=False, bucket_inside=False)
    assert results_table.row_cells(outside)[2] == "cols [1024, 1025) (nearest)"
    assert results_table.served_text({"winner_params": {"B": 1}}) == "one winner"
    assert results_table.served_text({"winner_params": None}) == "defaults"
    md = results_table.markdown({}, [row, outside])
    assert "| layernorm | 3x1000 | cols [1024, 1025) (nearest) | " in md
    assert all(l.count("|") == len(results_table.COLUMNS) + 1 for l in md.splitlines() if l.startswith("|"))

    plan = {"spec": {"id": "k"}, "arch": "sm_90", "lock_device": "NVIDIA H200", "lock_entry": BUCKETS}
    e = entries.by_template("layernorm")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "tune_layernorm.json"), "w") as f:
            f.write('{"kernels": [{"id": "k", "bucket": "cols [1024, 1025)", "evaluations": 40}, '
                    '{"id": "k", "evaluations": 30}, {"id": "k", "evaluations": 20}, {"id": "x", "evaluations": 9}]}')
        note = ct.tune_note(d, e, plan)
    assert note == ("layernorm: 90 evaluations (3 searches); 3 buckets of cols (sm_90, NVIDIA H200): "
                    "cols [1024, 1025): B=128 V=8; cols [8192, 8193): B=512 V=4; cols [16384, 16385): B=512 V=4"), note
    plain = ct.tune_note("/nonexistent", e, dict(plan, lock_entry={"params": {"B": 64}}))
    assert plain == "layernorm: no tune result (see tune_layernorm.log); winner B=64 (sm_90, NVIDIA H200)", plain


def test_variants_base_per_shape():
    defaults = {"B": 256, "V": 4, "H": 0}
    assert variants.base_of(defaults, BUCKETS, {"cols": 1024}) == {"B": 128, "V": 8, "H": 0}
    assert variants.base_of(defaults, BUCKETS, {"cols": 9000}) == {"B": 512, "V": 4, "H": 0}
    assert variants.base_of(defaults, None, {"cols": 9000}) == defaults
    assert variants.distinct([{"a": 1}, {"a": 2}, {"a": 1}]) == [{"a": 1}, {"a": 2}]
    # Each shape's variants are compiled with its bucket's size define: 8192 and 16384 share a
    # winner but not a compile; 9000 (nearest 8192) shares 8192's.
    shapes = [{"cols": 8192}, {"cols": 16384}, {"cols": 9000}]
    per_shape, configs = variants.shape_configs(defaults, BUCKETS, shapes, [("H", [0, 1])])
    base = {"B": 512, "V": 4}
    assert per_shape["9000"] == ([dict(base, H=0), dict(base, H=1)], "KERNELEVO_SIZE_cols=8192")
    assert configs == [(dict(base, H=0), "KERNELEVO_SIZE_cols=8192"), (dict(base, H=1), "KERNELEVO_SIZE_cols=8192"),
                       (dict(base, H=0), "KERNELEVO_SIZE_cols=16384"), (dict(base, H=1), "KERNELEVO_SIZE_cols=16384")]
    per_shape, configs = variants.shape_configs(defaults, None, shapes, [])
    assert configs == [(defaults, None)] and per_shape["8192"] == ([defaults], None)


def test_dispatch_dims():
    behind = ["layernorm_bf16", "rmsnorm", "layernorm", "sum", "bias_gelu"]
    assert [entries.dispatch_dim(t) for t in behind] == ["cols", "cols", "cols", "n", "cols"]
    assert entries.dispatch_dim("gemm_tc") is None and entries.dispatch_dim("nope") is None
    for e in entries.ENTRIES:
        if e.dispatch_by:  # each listed shape names the dimension, and it tells them apart
            assert all(e.dispatch_by in s for s in e.shapes), e.template
            assert len({s[e.dispatch_by] for s in e.shapes}) == len(e.shapes), e.template
        assert (e.dispatch_by is None) == (not e.memory_bound), e.template
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "entries.py"),
                          "--dispatch-by", "sum"], capture_output=True, text=True, check=True).stdout
    assert out == "n\n", out


def test_per_shape_copies(kernelevo):
    """`kernelevo init --dispatch DIM` copies each per-shape template into OUT/templates as
    run.sh does; its spec keeps entries.py's kernel id and shapes, with the dispatch added."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, KERNELEVO_TEMPLATES_DIR=os.path.join(ct.ROOT, "templates"))
        for name in entries.template_names():
            dim = entries.dispatch_dim(name)
            if not dim:
                continue
            subprocess.run([kernelevo, "init", "--template", name, "--dispatch", dim, "templates/"], cwd=d, env=env,
                           check=True, capture_output=True)
            for e in entries.of_template(name):
                spec = ct.load_spec(kernelevo, f"templates/{name}.cu", e.kernel, d)
                # Every listed shape is a problem of the spec, so each gets its own bucket.
                assert spec["id"] == e.kernel and all(s in spec["problems"] for s in e.shapes), name
                text = open(os.path.join(d, "templates", name + ".cu")).read()
                assert f"dispatch: {{by: [{dim}], buckets: per_problem}}\n" in text, name
    print("  per-shape copies: every template with a dispatch_by")


def main():
    tests = [test_bucket_index, test_size_define, test_served_by, test_lock_entry_and_winner_sets,
             test_prepare_compiles_each_distinct_winner, test_table_and_notes, test_variants_base_per_shape,
             test_dispatch_dims]
    for t in tests:
        t()
        print(f"ok {t.__name__}")
    if len(sys.argv) > 1:
        test_per_shape_copies(os.path.abspath(sys.argv[1]))
        print("ok test_per_shape_copies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
