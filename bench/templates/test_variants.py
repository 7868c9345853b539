#!/usr/bin/env python3
"""Tests of variants.py's parts that need no GPU: the --grid parser, the variants laid over
a base configuration and the Markdown table.

  python3 bench/templates/test_variants.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_torch as ct  # noqa: E402
import cuda_launch  # noqa: E402
import variants  # noqa: E402


def exits(fn, *args):
    try:
        fn(*args)
    except SystemExit as e:
        return str(e)
    raise AssertionError(f"no SystemExit for {args}")


def test_parse_grid():
    assert variants.parse_grid([]) == []
    assert variants.parse_grid(["A=0,1,2", "B=-1,x"]) == [("A", [0, 1, 2]), ("B", [-1, "x"])]
    for bad in ["A", "A=", "=1", "A=1,,2", "A=1,"]:
        assert "NAME=v1,v2" in exits(variants.parse_grid, [bad]), bad
    assert "twice" in exits(variants.parse_grid, ["A=1", "A=2"])


def test_variants_of():
    base = {"A": 0, "B": 5, "C": 9}
    assert variants.variants_of(base, []) == [base]
    got = variants.variants_of(base, [("A", [1, 2]), ("B", [6, 7])])
    assert got == [{"A": 1, "B": 6, "C": 9}, {"A": 1, "B": 7, "C": 9},
                   {"A": 2, "B": 6, "C": 9}, {"A": 2, "B": 7, "C": 9}]
    assert base == {"A": 0, "B": 5, "C": 9}  # the base is not changed


def test_with_grid():
    f16 = ("e16", {"id": "g_f16", "defaults": {"F16_BN": 256, "F16_SPLIT": 1}})
    bf16 = ("e_bf16", {"id": "g_bf16", "defaults": {"BF16_BN": 256, "BF16_SPLIT": 1}})
    assert variants.with_grid([f16, bf16], [("F16_SPLIT", [1, 2])]) == [f16]
    assert variants.with_grid([f16, bf16], []) == [f16, bf16]
    assert "g_f16 has no parameter F16_X" in exits(variants.with_grid, [f16, bf16],
                                                    [("F16_SPLIT", [1]), ("F16_X", [1])])
    said = exits(variants.with_grid, [f16, bf16], [("SPLIT", [1])])
    assert "no kernel of the template (g_f16, g_bf16) has parameter SPLIT" in said, said


def test_markdown():
    grid = [("H", [0, 1])]
    rows = [
        {"shape": {"rows": 4, "cols": 8}, "params": {"H": 0, "X": 3}, "compile_us": 10.0, "us": 8.0,
         "ratio_compile": 1.25},
        {"shape": {"rows": 4, "cols": 8}, "params": {"H": 1, "X": 3}, "compile_us": 10.0,
         "error": "compile failed: " + "e" * 100},
        {"shape": {"rows": 4, "cols": 8}, "params": {"H": 1, "X": 3}, "compile_us": 10.0, "us": None,
         "agree": False},
    ]
    assert variants.markdown(rows, grid).splitlines() == [
        "| shape | H | us | torch.compile us | compile/ours |",
        "|---|---|---|---|---|",
        "| 4x8 | 0 | 8.0 | 10.0 | 1.250 |",
        "| 4x8 | 1 | compile failed: eeeeeeeeeeeeeeeeeeeeeeee | 10.0 | - |",
        "| 4x8 | 1 | disagrees | 10.0 | - |",
    ]


def test_markdown_with_more_timers():
    grid = [("H", [0, 2])]
    rows = [
        {"shape": {"rows": 4}, "params": {"H": 0}, "compile_us": 10.0, "us": 8.0, "ratio_compile": 1.25,
         "more_timers": {"do_bench": {"us": 9.0, "compile_us": 9.9}}},
        {"shape": {"rows": 4}, "params": {"H": 2}, "compile_us": 10.0, "us": None, "agree": False,
         "more_timers": {}},
    ]
    assert variants.markdown(rows, grid, ["clean", "do_bench"]).splitlines() == [
        "| shape | H | us | torch.compile us | compile/ours | do_bench us | do_bench torch.compile us | "
        "do_bench compile/ours |",
        "|---|---|---|---|---|---|---|---|",
        "| 4 | 0 | 8.0 | 10.0 | 1.250 | 9.0 | 9.9 | 1.100 |",
        "| 4 | 2 | disagrees | 10.0 | - | - | - | - |",
    ]


def test_measure_variant_with_more_timers():
    row = variants.measure_variant({"compile_us": 10.0}, lambda: "L", lambda launch: (0.0, True),
                                   lambda launch: 8.0, {"do_bench": (lambda launch: 9.0, 9.9)})
    assert row["more_timers"] == {"do_bench": {"us": 9.0, "compile_us": 9.9}}
    row = variants.measure_variant({"compile_us": 10.0}, lambda: "L", lambda launch: (1.0, False),
                                   lambda launch: 1 / 0, {"do_bench": (lambda launch: 1 / 0, 9.9)})
    assert row["more_timers"] == {}


class FakeTorch:
    """Records what an L2 flush does to its buffer: written (fill_) and read (sum)."""
    float32 = "float32"

    def __init__(self):
        self.ops = []
        fake = self

        class Buffer:
            def fill_(self, v):
                fake.ops.append("write")

            def view(self, *shape):
                return self

        self.Buffer = Buffer

    def empty(self, n, dtype=None, device=None):
        return self.Buffer()

    def sum(self, t, dim=None, out=None):
        self.ops.append("read")


def test_dirty_timer_leaves_the_flush_written_not_read_back():
    torch = FakeTorch()
    ct.l2_flush(torch)()
    assert torch.ops == ["write", "read"]  # clean: the dirty lines written back before the run
    torch = FakeTorch()
    ct.l2_flush(torch, clean=False)()
    assert torch.ops == ["write"]  # dirty, as do_bench leaves the L2
    names = [name for name, _, _ in variants.make_timers(FakeTorch(), ["clean", "dirty"], 10)]
    assert names == ["clean", "dirty"]
    desc = variants.make_timers(FakeTorch(), ["dirty"], 10)[0][2]
    assert "not read back" in desc and "dirty" in desc
    assert "dirty" in exits(variants.make_timers, FakeTorch(), ["warm"], 10)


def test_measure_variant():
    def refused():
        raise cuda_launch.DriverError("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): invalid argument (1)")

    row = variants.measure_variant({"compile_us": 10.0}, refused, None, None)
    assert row["error"].startswith("launch failed: cuFuncSetAttribute") and "us" not in row
    row = variants.measure_variant({"compile_us": 10.0}, lambda: "L", lambda launch: (0.0, launch == "L"),
                                   lambda launch: 8.0)
    assert (row["agree"], row["us"], row["ratio_compile"]) == (True, 8.0, 1.25)
    row = variants.measure_variant({"compile_us": 10.0}, lambda: "L", lambda launch: (1.0, False),
                                   lambda launch: 1 / 0)
    assert row["us"] is None and "ratio_compile" not in row  # a wrong variant is not timed


def main():
    for t in [test_parse_grid, test_variants_of, test_with_grid, test_markdown, test_measure_variant,
              test_markdown_with_more_timers, test_measure_variant_with_more_timers,
              test_dirty_timer_leaves_the_flush_written_not_read_back]:
        t()
        print(f"ok {t.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
